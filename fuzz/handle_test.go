// Package fuzz holds black-box fuzz targets for mcpid: each checks
// properties (round trip, inverse, agreement with a slow reference,
// bounds) over inputs the fuzzer invents, seeded from the shared tables.
package fuzz

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/idcases"
	"github.com/mcpid/mcpid/internal/testkit/sentinel"
)

// The reference parser and name rules, written plainly, are shared with
// the unit tests through idcases.
var (
	refParse      = idcases.RefParse
	refName       = idcases.RefName
	refOpaque     = idcases.RefOpaque
	refConnection = idcases.RefConnection
)

func seedIDs(f *testing.F) {
	for _, tc := range idcases.Cases() {
		f.Add(tc.ID)
	}
}

func FuzzParse(f *testing.F) {
	seedIDs(f)
	f.Fuzz(func(t *testing.T, id string) {
		h, err := mcpid.Parse(id)
		conn, stream, record, ok := refParse(id)
		if ok != (err == nil) {
			t.Fatalf("Parse(%q) error = %v, reference accepts = %v", id, err, ok)
		}
		if err != nil {
			var e *mcpid.Error
			if !errors.As(err, &e) || e.Code != mcpid.CodeInvalidID || !errors.Is(err, mcpid.ErrInvalidID) {
				t.Fatalf("Parse(%q) error %#v is not an invalid_id *Error", id, err)
			}
			if segment, offset := idcases.RefFault(id); e.Segment != segment || e.Offset != offset {
				t.Fatalf("Parse(%q) fault in %s at %d, reference in %s at %d", id, e.Segment, e.Offset, segment, offset)
			}
			if e.Input != id || e.Field != mcpid.FieldID {
				t.Fatalf("Parse(%q) error input %q field %q", id, e.Input, e.Field)
			}
			if h != (mcpid.Handle{}) {
				t.Fatalf("Parse(%q) failed but returned %#v", id, h)
			}
			return
		}
		if h.ConnectionID() != conn || h.Stream() != stream || h.RecordID() != record {
			t.Fatalf("Parse(%q) = (%q, %q, %q), reference (%q, %q, %q)",
				id, h.ConnectionID(), h.Stream(), h.RecordID(), conn, stream, record)
		}
		if h.String() != id || h.IsSelfContained() != (conn != "") || h.IsOpaque() != (stream == "") || !h.IsValid() {
			t.Fatalf("Parse(%q): String %q, IsSelfContained %v, IsOpaque %v", id, h.String(), h.IsSelfContained(), h.IsOpaque())
		}
		if want := strings.TrimPrefix(id, idcases.RefEscape(conn)+"/"); conn != "" && h.BaseID() != strings.TrimPrefix(want, ":") {
			t.Fatalf("Parse(%q).BaseID() = %q", id, h.BaseID())
		}
		enc, err := mcpid.Encode(conn, stream, record)
		if err != nil || enc != id {
			t.Fatalf("Encode of the parts of %q = %q, %v", id, enc, err)
		}
		var back mcpid.Handle
		if err := back.UnmarshalText([]byte(id)); err != nil || back != h {
			t.Fatalf("UnmarshalText(%q) = %#v, %v", id, back, err)
		}
	})
}

func FuzzEncode(f *testing.F) {
	for _, tc := range idcases.Cases() {
		if tc.OK {
			f.Add(tc.Conn, tc.Stream, tc.Record)
		}
	}
	f.Add("a:b", "s", "r")
	f.Add("projects/p1/connections/c2", "s", "r")
	f.Add("a\\b", "s", "r")
	f.Add("c", "s/t", "r")
	f.Add("", "..", ".")
	f.Add("c", "", "https://x.example/../a")
	f.Add("", "", "r")
	f.Add("c", "", "a\x85")
	f.Fuzz(func(t *testing.T, conn, stream, record string) {
		id, err := mcpid.Encode(conn, stream, record)
		valid := (conn == "" || refConnection(conn)) && refName(stream, false) && refName(record, true)
		if stream == "" { // the opaque form
			valid = refConnection(conn) && refOpaque(record)
		}
		if valid != (err == nil) {
			t.Fatalf("Encode(%q, %q, %q) = %q, %v; parts valid = %v", conn, stream, record, id, err, valid)
		}
		if err != nil {
			var e *mcpid.Error
			if !errors.As(err, &e) || e.Code != mcpid.CodeInvalidID || id != "" {
				t.Fatalf("Encode(%q, %q, %q) error %#v", conn, stream, record, err)
			}
			part := map[string]string{mcpid.SegmentConnection: conn, mcpid.SegmentStream: stream, mcpid.SegmentRecord: record}[e.Segment]
			if e.Input != part || e.Offset >= len(part) || (e.Offset < 0 && part != "") {
				t.Fatalf("Encode error names %s %q offset %d", e.Segment, e.Input, e.Offset)
			}
			return
		}
		h, err := mcpid.Parse(id)
		if err != nil || h.ConnectionID() != conn || h.Stream() != stream || h.RecordID() != record {
			t.Fatalf("Parse(Encode(%q, %q, %q)) = %#v, %v", conn, stream, record, h, err)
		}
	})
}

func FuzzResolveFetch(f *testing.F) {
	for _, tc := range idcases.Cases() {
		f.Add(tc.ID, "")
		f.Add(tc.ID, "cin_4f2a")
		f.Add(tc.ID, tc.Conn)
	}
	f.Add("s:r", "a/b")
	f.Add("a%2Fb/s:r", "a/b")
	f.Add("a%2Fb/s:r", "a%2Fb")
	f.Add("c1/s:r", "c2")
	f.Add("s:r", "..")
	f.Add("c1/:x/../y", "c2")
	f.Add("c1/:x", "c1")
	f.Fuzz(func(t *testing.T, id, conn string) {
		req, err := mcpid.ResolveFetch(id, conn)

		// What the contract's table says, from the reference parser.
		embedded, _, _, idOK := refParse(id)
		var wantCode mcpid.Code
		switch {
		case !idOK:
			wantCode = mcpid.CodeInvalidID
		case conn != "" && !refConnection(conn):
			wantCode = mcpid.CodeInvalidConnectionID
		case embedded != "" && conn != "" && conn != embedded:
			wantCode = mcpid.CodeConflictingConnectionID
		}
		if err != nil {
			var e *mcpid.Error
			if !errors.As(err, &e) || e.Code != wantCode {
				t.Fatalf("ResolveFetch(%q, %q) error %v, want code %q", id, conn, err, wantCode)
			}
			if req != (mcpid.FetchRequest{}) {
				t.Fatalf("ResolveFetch(%q, %q) failed but returned %#v", id, conn, req)
			}
			if err := idcases.CheckEnvelopeRoundTrip(err, decodeEnvelope, sentinel.For(e.Code)); err != nil {
				t.Fatal(err)
			}
			return
		}
		if wantCode != "" {
			t.Fatalf("ResolveFetch(%q, %q) succeeded, want %q", id, conn, wantCode)
		}
		// The forwarded connection is the embedded or the explicit one,
		// and nothing else.
		switch {
		case embedded != "":
			if req.ConnectionID != embedded || req.Scope != mcpid.ScopeEmbedded {
				t.Fatalf("ResolveFetch(%q, %q) = %#v", id, conn, req)
			}
		case conn != "":
			if req.ConnectionID != conn || req.Scope != mcpid.ScopeExplicit {
				t.Fatalf("ResolveFetch(%q, %q) = %#v", id, conn, req)
			}
		default:
			if req.ConnectionID != "" || req.Scope != mcpid.ScopeUnscoped {
				t.Fatalf("ResolveFetch(%q, %q) = %#v", id, conn, req)
			}
		}
		if req.EchoID != id || req.Handle.String() != id {
			t.Fatalf("ResolveFetch(%q, %q) echoes %q", id, conn, req.EchoID)
		}
		if c := req.ConnectionID; c != "" && !refConnection(c) {
			t.Fatalf("ResolveFetch(%q, %q) forwards connection %q", id, conn, c)
		}
		if q := req.Query(); q.Get("connection_id") != req.ConnectionID || len(q) > 1 {
			t.Fatalf("Query() = %v", q)
		}
		checkRecordPath(t, req)
	})
}

// checkRecordPath checks that the record path has exactly its five
// segments, that none can traverse, and that unescaping gives the stream
// and record back.
func checkRecordPath(t *testing.T, req mcpid.FetchRequest) {
	t.Helper()
	path := req.RecordPath()
	if req.Handle.IsOpaque() {
		if path != "" {
			t.Fatalf("RecordPath of opaque %q = %q", req.EchoID, path)
		}
		return
	}
	u, err := url.Parse(path)
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		t.Fatalf("RecordPath %q does not parse as a bare path: %v", path, err)
	}
	segs := strings.Split(u.EscapedPath(), "/")
	if len(segs) != 6 || segs[0] != "" || segs[1] != "v1" || segs[2] != "streams" || segs[4] != "records" {
		t.Fatalf("RecordPath %q has the wrong shape", path)
	}
	for i, want := range map[int]string{3: req.Handle.Stream(), 5: req.Handle.RecordID()} {
		got, err := url.PathUnescape(segs[i])
		if err != nil || got != want {
			t.Fatalf("RecordPath %q segment %d unescapes to %q, want %q", path, i, got, want)
		}
		if got == "." || strings.Contains(got, "..") || strings.ContainsAny(got, "/\\") {
			t.Fatalf("RecordPath %q segment %d can traverse: %q", path, i, got)
		}
	}
}

// FuzzSelfContainedID checks, over pairs of arbitrary strings, that every
// id SelfContainedID mints resolves, alone and with its connection as
// argument, to exactly that connection and base id, and that two base ids
// of one connection never share an id.
func FuzzSelfContainedID(f *testing.F) {
	for _, tc := range idcases.Cases() {
		f.Add(tc.ID, tc.Record, "cin_4f2a")
		f.Add(tc.ID, tc.Stream+":"+tc.Record, tc.Conn)
		f.Add(tc.Record, tc.ID, tc.Conn)
	}
	f.Add("https://example.com/x", "c/:https://example.com/x", "c")
	f.Add("reports/2024:q3.pdf", "2024:q3.pdf", "reports")
	f.Add("s:r", ":s:r", "a:b")
	f.Add("s:r", "r", "projects/p1/connections/c2")
	f.Fuzz(func(t *testing.T, base, other, conn string) {
		id, embedded := checkSelfContainedID(t, base, conn)
		otherID, otherEmbedded := checkSelfContainedID(t, other, conn)
		if embedded && otherEmbedded && base != other && id == otherID {
			t.Fatalf("SelfContainedID gives %q to both %q and %q in %q", id, base, other, conn)
		}
	})
}

// checkSelfContainedID checks SelfContainedID(base, conn) with the shared
// checker, resolving the id alone and with conn as argument.
func checkSelfContainedID(t *testing.T, base, conn string) (string, bool) {
	t.Helper()
	id, embedded := mcpid.SelfContainedID(base, conn)
	for _, explicit := range []string{"", conn} {
		if err := idcases.CheckSelfContainedID(base, conn, id, embedded, resolver(explicit)); err != nil {
			t.Fatal(err)
		}
	}
	return id, embedded
}

// TestSelfContainedIDCorpus checks both promises of SelfContainedID over
// a generated corpus: every base id the shared table can give (each id,
// each record, each connection/record pair) with connections valid and
// not.
func TestSelfContainedIDCorpus(t *testing.T) {
	conns := []string{"cin_4f2a", "c", "c1", "c2", "café", "cin_drive", "reports", "a:b", "a/b", "projects/p1/connections/c2", "100%", "%2F", "..", ".", `a\b`, "", "c\x00", "c\xff"}
	var bases []string
	for _, tc := range idcases.Cases() {
		bases = append(bases, tc.ID, tc.Record, tc.Conn+"/"+tc.Record, tc.Stream+"/"+tc.ID)
	}
	for _, conn := range conns {
		for _, base := range bases {
			checkSelfContainedID(t, base, conn)
		}
	}
}

// resolver returns ResolveFetch with the connection_id argument conn, as
// the shared checker sees it: an id that embeds its connection.
func resolver(conn string) idcases.Resolved {
	return func(id string) (string, string, error) {
		req, err := mcpid.ResolveFetch(id, conn)
		if err == nil && req.Scope != mcpid.ScopeEmbedded {
			err = fmt.Errorf("scope %v", req.Scope)
		}
		return req.ConnectionID, req.Handle.BaseID(), err
	}
}
