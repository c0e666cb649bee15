package mcpid

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/idcases"
)

func TestParse(t *testing.T) {
	for _, tc := range idcases.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			h, err := Parse(tc.ID)
			if !tc.OK {
				require.Error(t, err)
				assert.Equal(t, Handle{}, h)
				assertInvalid(t, err, FieldID, tc.Segment, tc.Offset, tc.ID)
				return
			}
			require.NoError(t, err)
			assert.True(t, h.IsValid())
			assert.Equal(t, tc.Conn, h.ConnectionID())
			assert.Equal(t, tc.Stream, h.Stream())
			assert.Equal(t, tc.Record, h.RecordID())
			assert.Equal(t, tc.Conn != "", h.IsSelfContained())
			assert.Equal(t, tc.Stream == "", h.IsOpaque())
			assert.Equal(t, tc.ID, h.String())
			wantBase := tc.Record
			if tc.Stream != "" {
				wantBase = tc.Stream + ":" + tc.Record
			}
			assert.Equal(t, wantBase, h.BaseID())

			// The other direction: the parts encode to the same bytes.
			id, err := Encode(h.ConnectionID(), h.Stream(), h.RecordID())
			require.NoError(t, err)
			assert.Equal(t, tc.ID, id)
		})
	}
}

// assertInvalid checks an error by its type, code and location.
func assertInvalid(t *testing.T, err error, field, segment string, offset int, input string) {
	t.Helper()
	var e *Error
	require.ErrorAs(t, err, &e)
	code := CodeInvalidID
	want := ErrInvalidID
	if field == FieldConnectionID {
		code, want = CodeInvalidConnectionID, ErrInvalidConnectionID
	}
	require.ErrorIs(t, err, want)
	assert.Equal(t, code, e.Code)
	assert.Equal(t, field, e.Field)
	assert.Equal(t, segment, e.Segment)
	assert.Equal(t, offset, e.Offset)
	assert.Equal(t, input, e.Input)
	if offset >= 0 {
		assert.Less(t, offset, len(input), "offset must fall inside the input")
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		name                 string
		conn, stream, record string
		want                 string
		segment              string // fault, when want is ""
		offset               int
	}{
		{name: "legacy", stream: "orders", record: "o1", want: "orders:o1"},
		{name: "self-contained", conn: "cin_4f2a", stream: "orders", record: "o1", want: "cin_4f2a/orders:o1"},
		{name: "record with colons", conn: "c", stream: "s", record: "a:b:", want: "c/s:a:b:"},
		{name: "non-ASCII", conn: "ç", stream: "ü", record: "日本", want: "ç/ü:日本"},
		{name: "opaque", conn: "c", record: "https://x.example/a/../b", want: "c/:https://x.example/a/../b"},
		{name: "opaque holding a handle", conn: "c2", record: "c1/s:r", want: "c2/:c1/s:r"},
		{name: "opaque dot", conn: "c", record: ".", want: "c/:."},
		{name: "opaque without connection", record: "r", segment: SegmentConnection, offset: -1},
		{name: "empty opaque", conn: "c", segment: SegmentRecord, offset: -1},
		{name: "opaque control", conn: "c", record: "a\u0085", segment: SegmentRecord, offset: 1},
		{name: "opaque invalid UTF-8", conn: "c", record: "\xc3", segment: SegmentRecord, offset: 0},
		{name: "opaque bad connection", conn: "a..b", record: "r", segment: SegmentConnection, offset: 1},
		{name: "empty record", stream: "s", segment: SegmentRecord, offset: -1},
		{name: "colon in connection is escaped", conn: "a:b", stream: "s", record: "r", want: "a%3Ab/s:r"},
		{name: "GCP resource name", conn: "projects/p1/connections/c2", stream: "s", record: "r", want: "projects%2Fp1%2Fconnections%2Fc2/s:r"},
		{name: "ARN, opaque", conn: "arn:aws:s3:::b", record: "k/x.txt", want: "arn%3Aaws%3As3%3A%3A%3Ab/:k/x.txt"},
		{name: "percent in connection is escaped", conn: "100%", stream: "s", record: "r", want: "100%25/s:r"},
		{name: "escape-like connection is escaped", conn: "a%2Fb", stream: "s", record: "r", want: "a%252Fb/s:r"},
		{name: "backslash in connection", conn: `a\b`, stream: "s", record: "r", segment: SegmentConnection, offset: 1},
		{name: "colon in stream", stream: "s:t", record: "r", segment: SegmentStream, offset: 1},
		{name: "slash in stream", stream: "s/t", record: "r", segment: SegmentStream, offset: 1},
		{name: "slash in record", stream: "s", record: "a/b", segment: SegmentRecord, offset: 1},
		{name: "dotdot in record", stream: "s", record: "../x", segment: SegmentRecord, offset: 0},
		{name: "dot connection", conn: ".", stream: "s", record: "r", segment: SegmentConnection, offset: 0},
		{name: "dot stream", stream: ".", record: "r", segment: SegmentStream, offset: 0},
		{name: "dot record", stream: "s", record: ".", segment: SegmentRecord, offset: 0},
		{name: "backslash", stream: "s", record: `a\b`, segment: SegmentRecord, offset: 1},
		{name: "control", conn: "c\x1f", stream: "s", record: "r", segment: SegmentConnection, offset: 1},
		{name: "invalid UTF-8", stream: "s", record: "ab\xff", segment: SegmentRecord, offset: 2},
		{name: "connection checked first", conn: "a/..", stream: "", record: "", segment: SegmentConnection, offset: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(tt.conn, tt.stream, tt.record)
			if tt.want == "" {
				require.Error(t, err)
				assert.Empty(t, got)
				part := map[string]string{SegmentConnection: tt.conn, SegmentStream: tt.stream, SegmentRecord: tt.record}[tt.segment]
				assertInvalid(t, err, FieldID, tt.segment, tt.offset, part)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			h, err := Parse(got)
			require.NoError(t, err)
			assert.Equal(t, [3]string{tt.conn, tt.stream, tt.record}, [3]string{h.ConnectionID(), h.Stream(), h.RecordID()})
		})
	}
}

func TestZeroHandle(t *testing.T) {
	var h Handle
	assert.False(t, h.IsValid())
	assert.False(t, h.IsSelfContained())
	assert.False(t, h.IsOpaque())
	assert.Empty(t, h.BaseID())
	assert.Empty(t, h.ConnectionID())
	assert.Empty(t, h.Stream())
	assert.Empty(t, h.RecordID())
	assert.Empty(t, h.String())
	b, err := h.AppendText([]byte("x"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
	text, err := h.MarshalText()
	require.NoError(t, err)
	assert.Empty(t, text)
}

func TestHandleComparable(t *testing.T) {
	a := MustParse("c/s:r")
	b := MustParse(strings.Clone("c/s:r"))
	assert.True(t, a == b)
	assert.False(t, a == MustParse("s:r"))
	m := map[Handle]int{a: 1}
	assert.Equal(t, 1, m[b])
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		err, ok := recover().(error)
		require.True(t, ok, "MustParse must panic with an error")
		assertInvalid(t, err, FieldID, SegmentStream, 0, "orders")
	}()
	MustParse("orders")
	t.Fatal("MustParse accepted a malformed id")
}

func TestText(t *testing.T) {
	for _, id := range []string{"orders:o1", "cin_4f2a/orders:o1", "c/s:é ü", "c/:https://x.example/a b"} {
		h := MustParse(id)
		text, err := h.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, id, string(text))

		var back Handle
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, h, back)

		js, err := json.Marshal(struct{ ID Handle }{h})
		require.NoError(t, err)
		var decoded struct{ ID Handle }
		require.NoError(t, json.Unmarshal(js, &decoded))
		assert.Equal(t, h, decoded.ID)
	}

	t.Run("empty text is the zero Handle", func(t *testing.T) {
		h := MustParse("s:r")
		require.NoError(t, h.UnmarshalText(nil))
		assert.Equal(t, Handle{}, h)
	})
	t.Run("bad text is an error and the zero Handle", func(t *testing.T) {
		h := MustParse("s:r")
		err := h.UnmarshalText([]byte("c/s:../x"))
		assertInvalid(t, err, FieldID, SegmentRecord, 4, "c/s:../x")
		assert.Equal(t, Handle{}, h)
	})
}

func TestSelfContainedID(t *testing.T) {
	tests := []struct {
		name, base, conn string
		want             string
		embedded         bool
	}{
		{"legacy gets its connection", "orders:o1", "cin_4f2a", "cin_4f2a/orders:o1", true},
		{"record with colons", "s:a:b", "c", "c/s:a:b", true},
		{"non-ASCII connection", "s:r", "cïn", "cïn/s:r", true},
		{"scheme-only URI fits the legacy grammar", "urn:isbn:123", "c", "c/urn:isbn:123", true},
		{"look-alike of the same connection is wrapped", "c1/s:r", "c1", "c1/:c1/s:r", true},
		{"look-alike of the same connection, opaque", "c1/:x/y", "c1", "c1/:c1/:x/y", true},
		{"drive key in its own connection", "reports/2024:q3.pdf", "reports", "reports/:reports/2024:q3.pdf", true},
		{"its neighbour", "2024:q3.pdf", "reports", "reports/2024:q3.pdf", true},
		{"other connection embedded", "c1/s:r", "c2", "c2/:c1/s:r", true},
		{"other connection, opaque", "c1/:x", "c2", "c2/:c1/:x", true},
		{"URL", "https://wiki.example.com/p/7", "cin_9b1c", "cin_9b1c/:https://wiki.example.com/p/7", true},
		{"plain key", "T-17", "cin_9b1c", "cin_9b1c/:T-17", true},
		{"key with slash", "files:reports/q3.pdf", "c", "c/:files:reports/q3.pdf", true},
		{"key with dotdot", "commits:v1.2..v1.3", "c", "c/:commits:v1.2..v1.3", true},
		{"traversal base is opaque, never a path", "s:../x", "c", "c/:s:../x", true},
		{"backslash", `C:\x`, "c", `c/:C:\x`, true},
		{"dot", ".", "c", "c/:.", true},
		{"slash alone", "/", "c", "c/:/", true},
		{"colon alone", ":", "c", "c/::", true},
		{"no connection", "orders:o1", "", "orders:o1", false},
		{"empty base", "", "c", "", false},
		{"base with control", "T-17\n2. id=x", "c", "T-17\n2. id=x", false},
		{"base with C1 control", "T\u0085", "c", "T\u0085", false},
		{"base with invalid UTF-8", "T\xff", "c", "T\xff", false},
		{"connection with colon", "s:r", "drive:team", "drive%3Ateam/s:r", true},
		{"GCP connection", "octo/repo#42", "projects/p1/connections/c2", "projects%2Fp1%2Fconnections%2Fc2/:octo/repo#42", true},
		{"ARN connection", "s:r", "arn:aws:s3:::b", "arn%3Aaws%3As3%3A%3A%3Ab/s:r", true},
		{"connection with percent", "PROJ-17", "100%", "100%25/:PROJ-17", true},
		{"connection with backslash", "s:r", `a\b`, "s:r", false},
		{"connection with dotdot", "s:r", "..", "s:r", false},
		{"dot connection", "s:r", ".", "s:r", false},
		{"connection with control", "s:r", "c\n", "s:r", false},
		{"connection with invalid UTF-8", "s:r", "c\xff", "s:r", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, embedded := SelfContainedID(tt.base, tt.conn)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.embedded, embedded)
		})
	}
}

// TestSelfContainedIDMisroute is the regression test for a base id that
// looks like a handle of another connection: it must stay the base id of
// the connection it came with.
func TestSelfContainedIDMisroute(t *testing.T) {
	id, embedded := SelfContainedID("reports/2024:q3.pdf", "cin_drive")
	require.True(t, embedded)
	req, err := ResolveFetch(id, "")
	require.NoError(t, err)
	assert.Equal(t, "cin_drive", req.ConnectionID)
	assert.True(t, req.Handle.IsOpaque())
	assert.Equal(t, "reports/2024:q3.pdf", req.Handle.BaseID())
	assert.Empty(t, req.RecordPath())
}

func TestNoAllocs(t *testing.T) {
	ids := []string{"orders:o1", "cin_4f2a/orders:o1", "cin_4f2a7c91/salesforce_opportunities:0065g00000XyZabAAF", "c/s:é", "cin_9b1c/:https://wiki.example.com/p/7"}
	for _, id := range ids {
		h := MustParse(id)
		buf := make([]byte, 0, 128)
		for name, f := range map[string]func(){
			"Parse": func() { h, _ = Parse(id) },
			"accessors": func() {
				_, _, _, _, _ = h.ConnectionID(), h.Stream(), h.RecordID(), h.String(), h.BaseID()
				_, _, _ = h.IsSelfContained(), h.IsOpaque(), h.IsValid()
			},
			"AppendText":   func() { buf, _ = h.AppendText(buf[:0]) },
			"ResolveFetch": func() { _, _ = ResolveFetch(id, h.ConnectionID()) },
			"ResolveFetch explicit": func() {
				_, _ = ResolveFetch(id, "cin_x:y")
			},
		} {
			if name == "ResolveFetch explicit" && h.IsSelfContained() {
				continue
			}
			if allocs := testing.AllocsPerRun(100, f); allocs != 0 {
				t.Errorf("%s(%q): %v allocs, want 0", name, id, allocs)
			}
		}
	}
	// An escaped connection: parsing, comparing and an equal argument cost
	// nothing; decoding it costs its one string.
	escaped := "projects%2Fp1%2Fconnections%2Fc2/orders:o1"
	h := MustParse(escaped)
	for name, want := range map[string]struct {
		f      func()
		allocs float64
	}{
		"Parse":                    {func() { h, _ = Parse(escaped) }, 0},
		"ResolveFetch equal":       {func() { _, _ = ResolveFetch(escaped, "projects/p1/connections/c2") }, 0},
		"ResolveFetch conflict":    {func() { _, _ = ResolveFetch(escaped, "projects/p1/connections/c3") }, 2}, // the error and its decoded connection
		"ResolveFetch alone":       {func() { _, _ = ResolveFetch(escaped, "") }, 1},
		"ConnectionID":             {func() { _ = h.ConnectionID() }, 1},
		"Stream, RecordID, BaseID": {func() { _, _, _ = h.Stream(), h.RecordID(), h.BaseID() }, 0},
	} {
		if allocs := testing.AllocsPerRun(100, want.f); allocs > want.allocs {
			t.Errorf("%s(%q): %v allocs, want %v", name, escaped, allocs, want.allocs)
		}
	}
	for _, parts := range [][3]string{{"c", "s", "r"}, {"", "s", "r"}, {"c", "", "https://x.example/a"}, {"a/b:c", "s", "r"}, {"a/b:c", "", "x"}} {
		if allocs := testing.AllocsPerRun(100, func() { _, _ = Encode(parts[0], parts[1], parts[2]) }); allocs != 1 {
			t.Errorf("Encode%q: %v allocs, want 1", parts, allocs)
		}
	}
}

// TestParseBenchClassesNoAllocs: every class of id the benchmarks
// measure parses, without allocating.
func TestParseBenchClassesNoAllocs(t *testing.T) {
	for _, bm := range benchIDs {
		t.Run(bm.name, func(t *testing.T) {
			h, err := Parse(bm.id)
			require.NoError(t, err)
			assert.Equal(t, bm.id, h.String())
			assert.LessOrEqual(t, len(bm.id), 64, "the table's classes are ids of at most 64 bytes")
			assert.Zero(t, testing.AllocsPerRun(100, func() { sinkHandle, _ = Parse(bm.id) }))
		})
	}
}

// TestCharSetsShrinkAlongAnID pins what the one-pass scan relies on: a
// parse only moves from a segment's set to one that stops at no byte the
// first does not stop at, so the stops already found for a word still hold
// every stop of the next segment.
func TestCharSetsShrinkAlongAnID(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to *charSet
	}{
		{"connection to stream", segmentBytes, nameNoColonBytes},
		{"connection to opaque", segmentBytes, opaqueBytes},
		{"legacy stream to record", segmentBytes, nameBytes},
		{"stream to record", nameNoColonBytes, nameBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for c := 0; c < 256; c++ {
				if tc.to.stop[c] == 1 {
					assert.Equal(t, uint8(1), tc.from.stop[c], "byte %#x", c)
				}
			}
		})
	}
	for _, set := range []*charSet{segmentBytes, nameNoColonBytes, nameBytes, opaqueBytes, connectionBytes} {
		for c := 0; c < 256; c++ {
			assert.Equal(t, set.fault[c] != faultNone, set.stop[c] == 1, "byte %#x", c)
		}
	}
}
