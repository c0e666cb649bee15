// Package fuzz holds black-box fuzz targets for mcpid: each checks
// properties (round trip, inverse, agreement with a slow reference,
// bounds) over inputs the fuzzer invents, seeded from the shared tables.
package fuzz

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/idcases"
)

// refName is the name rule written as plainly as possible: the reference
// the fast parser is checked against.
func refName(s string, colonOK bool) bool {
	if s == "" || s == "." || strings.Contains(s, "..") || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == '/', r == '\\', r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return false
		case r == ':' && !colonOK:
			return false
		}
	}
	return true
}

// refParse is the grammar read straight off the design: split at the
// first '/', then at the first ':'.
func refParse(id string) (conn, stream, record string, ok bool) {
	rest := id
	if c, r, found := strings.Cut(id, "/"); found {
		if !refName(c, false) {
			return "", "", "", false
		}
		conn, rest = c, r
	}
	stream, record, found := strings.Cut(rest, ":")
	if !found || !refName(stream, false) || !refName(record, true) {
		return "", "", "", false
	}
	return conn, stream, record, true
}

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
			if id == "" {
				if e.Offset != -1 {
					t.Fatalf("Parse(\"\") offset = %d, want -1", e.Offset)
				}
			} else if e.Offset < 0 || e.Offset >= len(id) {
				t.Fatalf("Parse(%q) offset %d outside the input", id, e.Offset)
			}
			switch e.Segment {
			case mcpid.SegmentConnection, mcpid.SegmentStream, mcpid.SegmentRecord:
			default:
				if id != "" {
					t.Fatalf("Parse(%q) segment %q", id, e.Segment)
				}
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
		if h.String() != id || h.IsSelfContained() != (conn != "") || !h.IsValid() {
			t.Fatalf("Parse(%q): String %q, IsSelfContained %v", id, h.String(), h.IsSelfContained())
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
	f.Add("c", "s/t", "r")
	f.Add("", "..", ".")
	f.Fuzz(func(t *testing.T, conn, stream, record string) {
		id, err := mcpid.Encode(conn, stream, record)
		valid := (conn == "" || refName(conn, false)) && refName(stream, false) && refName(record, true)
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
	f.Add("c1/s:r", "c2")
	f.Add("s:r", "..")
	f.Fuzz(func(t *testing.T, id, conn string) {
		req, err := mcpid.ResolveFetch(id, conn)

		// What the contract's table says, from the reference parser.
		embedded, _, _, idOK := refParse(id)
		var wantCode mcpid.Code
		switch {
		case !idOK:
			wantCode = mcpid.CodeInvalidID
		case conn != "" && !refName(conn, true):
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
		if c := req.ConnectionID; c != "" && !refName(c, true) {
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

func FuzzSelfContainedID(f *testing.F) {
	for _, tc := range idcases.Cases() {
		f.Add(tc.ID, "cin_4f2a")
		f.Add(tc.Record, tc.Conn)
	}
	f.Add("https://example.com/x", "c")
	f.Add("s:r", "a:b")
	f.Fuzz(func(t *testing.T, base, conn string) {
		id, embedded := mcpid.SelfContainedID(base, conn)
		if !embedded {
			if id != base {
				t.Fatalf("SelfContainedID(%q, %q) = %q, not embedded but changed", base, conn, id)
			}
			h, err := mcpid.Parse(base)
			if err == nil && !h.IsSelfContained() && refName(conn, false) {
				t.Fatalf("SelfContainedID(%q, %q) refused a legacy id and a valid connection", base, conn)
			}
			return
		}
		if id != conn+"/"+base {
			t.Fatalf("SelfContainedID(%q, %q) = %q", base, conn, id)
		}
		// Search never mints a handle that fetch would reject.
		req, err := mcpid.ResolveFetch(id, "")
		if err != nil || req.ConnectionID != conn || req.Scope != mcpid.ScopeEmbedded {
			t.Fatalf("ResolveFetch(%q, \"\") = %#v, %v", id, req, err)
		}
		if req, err := mcpid.ResolveFetch(id, conn); err != nil || req.ConnectionID != conn {
			t.Fatalf("ResolveFetch(%q, %q) = %#v, %v", id, conn, req, err)
		}
	})
}
