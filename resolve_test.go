package mcpid

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/idcases"
)

func TestResolveFetch(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		connID string
		// success
		wantConn  string
		wantScope Scope
		// failure
		wantCode    Code
		wantField   string
		wantSegment string
		wantOffset  int
	}{
		// The table of the contract, row by row.
		{name: "embedded alone", id: "c1/s:r", wantConn: "c1", wantScope: ScopeEmbedded},
		{name: "embedded and equal argument", id: "c1/s:r", connID: "c1", wantConn: "c1", wantScope: ScopeEmbedded},
		{name: "embedded and other argument", id: "c1/s:r", connID: "c2", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "legacy alone", id: "s:r", wantScope: ScopeUnscoped},
		{name: "legacy and argument", id: "s:r", connID: "c", wantConn: "c", wantScope: ScopeExplicit},
		{name: "malformed id", id: "s", connID: "c", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentStream, wantOffset: 0},
		{name: "valid id, malformed argument", id: "s:r", connID: `a\b`, wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 1},

		// The argument may hold ':' and '/': it is compared with the
		// decoded embedded connection.
		{name: "argument with slash scopes a legacy id", id: "s:r", connID: "projects/p1/connections/c2", wantConn: "projects/p1/connections/c2", wantScope: ScopeExplicit},
		{name: "escaped connection alone", id: "projects%2Fp1%2Fconnections%2Fc2/s:r", wantConn: "projects/p1/connections/c2", wantScope: ScopeEmbedded},
		{name: "escaped connection and equal argument", id: "arn%3Aaws%3As3%3A%3A%3Ab/:k/x.txt", connID: "arn:aws:s3:::b", wantConn: "arn:aws:s3:::b", wantScope: ScopeEmbedded},
		{name: "escaped connection and its escaped form", id: "a%2Fb/s:r", connID: "a%2Fb", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "escaped connection and a longer argument", id: "a%2Fb/s:r", connID: "a/bc", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "escaped connection and a shorter argument", id: "a%2Fb/s:r", connID: "a/", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "percent connection", id: "100%25/s:r", connID: "100%", wantConn: "100%", wantScope: ScopeEmbedded},
		{name: "argument with colon scopes a legacy id", id: "s:r", connID: "tenant:c", wantConn: "tenant:c", wantScope: ScopeExplicit},
		{name: "argument with colon conflicts", id: "c/s:r", connID: "c:x", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "prefix is not equal", id: "c1/s:r", connID: "c", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "no case folding", id: "C1/s:r", connID: "c1", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},

		// Empty segments and extra separators.
		{name: "empty connection", id: "/s:r", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentConnection, wantOffset: 0},
		{name: "only a connection", id: "c/", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentStream, wantOffset: 1},
		{name: "empty record", id: "c/s:", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentRecord, wantOffset: 3},
		{name: "empty stream before a second slash", id: "c//r", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentStream, wantOffset: 2},

		// The opaque form follows the same table.
		{name: "opaque alone", id: "c1/:https://x.example/a", wantConn: "c1", wantScope: ScopeEmbedded},
		{name: "opaque and equal argument", id: "c1/:T-17", connID: "c1", wantConn: "c1", wantScope: ScopeEmbedded},
		{name: "opaque and other argument", id: "c1/:T-17", connID: "c2", wantCode: CodeConflictingConnectionID, wantField: FieldConnectionID, wantSegment: SegmentConnection, wantOffset: -1},
		{name: "opaque and malformed argument", id: "c1/:T-17", connID: "..", wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 0},
		{name: "empty opaque", id: "c/:", connID: "c", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentRecord, wantOffset: 2},
		{name: "opaque without connection", id: "/:x", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentConnection, wantOffset: 0},
		{name: "no record", id: "c/s", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentStream, wantOffset: 2},
		{name: "extra slash", id: "c/x/s:r", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentStream, wantOffset: 3},

		// Traversal in every segment and in the argument.
		{name: "traversal connection", id: "../s:r", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentConnection, wantOffset: 0},
		{name: "traversal stream", id: "c/..:r", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentStream, wantOffset: 2},
		{name: "traversal record", id: "cin_a/orders:../../etc/passwd", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentRecord, wantOffset: 13},
		{name: "dot record", id: "s:.", wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentRecord, wantOffset: 2},
		{name: "traversal argument", id: "s:r", connID: "..", wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 0},
		{name: "dot argument", id: "s:r", connID: ".", wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 0},
		{name: "backslash argument", id: "s:r", connID: `a\..`, wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 1},
		{name: "control argument", id: "s:r", connID: "c\r\n", wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 1},
		{name: "invalid UTF-8 argument", id: "s:r", connID: "\xc3", wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 0},

		// Precedence: the id first, then the argument, then the conflict.
		{name: "bad id beats bad argument", id: "c/s:..", connID: `a\b`, wantCode: CodeInvalidID, wantField: FieldID, wantSegment: SegmentRecord, wantOffset: 4},
		{name: "bad argument beats conflict", id: "c/s:r", connID: "x/..", wantCode: CodeInvalidConnectionID, wantField: FieldConnectionID, wantOffset: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ResolveFetch(tt.id, tt.connID)
			if tt.wantCode != "" {
				require.Error(t, err)
				assert.Equal(t, FetchRequest{}, req, "an error comes with the zero request")
				assert.Empty(t, req.RecordPath())
				assert.Empty(t, req.Query())
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tt.wantCode, e.Code)
				assert.Equal(t, tt.wantField, e.Field)
				assert.Equal(t, tt.wantSegment, e.Segment)
				assert.Equal(t, tt.wantOffset, e.Offset)
				require.ErrorIs(t, err, sentinel(tt.wantCode))
				if tt.wantCode == CodeConflictingConnectionID {
					assert.Equal(t, tt.connID, e.Input)
					assert.Equal(t, MustParse(tt.id).ConnectionID(), e.Embedded)
					assert.Contains(t, e.Error(), `"`+tt.connID+`"`)
					assert.Contains(t, e.Error(), `"`+e.Embedded+`"`)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, MustParse(tt.id), req.Handle)
			assert.Equal(t, tt.wantConn, req.ConnectionID)
			assert.Equal(t, tt.wantScope, req.Scope)
			assert.Equal(t, tt.id, req.EchoID)
			if tt.wantConn == "" {
				assert.Empty(t, req.Query())
			} else {
				assert.Equal(t, url.Values{"connection_id": {tt.wantConn}}, req.Query())
			}
		})
	}
}

// TestResolveFetchTable runs every row of the shared id table through
// ResolveFetch with no argument: valid ids resolve, malformed ones fail
// exactly as Parse does.
func TestResolveFetchTable(t *testing.T) {
	for _, tc := range idcases.Cases() {
		req, err := ResolveFetch(tc.ID, "")
		if !tc.OK {
			assertInvalid(t, err, FieldID, tc.Segment, tc.Offset, tc.ID)
			continue
		}
		require.NoError(t, err, tc.Name)
		assert.Equal(t, tc.Conn, req.ConnectionID, tc.Name)
		wantScope := ScopeUnscoped
		if tc.Conn != "" {
			wantScope = ScopeEmbedded
		}
		assert.Equal(t, wantScope, req.Scope, tc.Name)
		if tc.Stream == "" {
			assert.Empty(t, req.RecordPath(), "an opaque base id never becomes a path")
			continue
		}
		assertRecordPath(t, req.RecordPath(), tc.Stream, tc.Record)
	}
}

func TestRecordPath(t *testing.T) {
	records := []string{"o1", "a?b", "a#b", "50%", "%2F", "a b", "日本語", "a+b", "a;b", "x:y:z", ".a", "a.", `"q"`, "é\u0301", "\u202E"}
	for _, rec := range records {
		t.Run(rec, func(t *testing.T) {
			req, err := ResolveFetch("c/strm ü?:"+rec, "")
			require.NoError(t, err)
			assertRecordPath(t, req.RecordPath(), "strm ü?", rec)
		})
	}
}

// assertRecordPath checks that path is /v1/streams/{stream}/records/{record}
// with exactly five segments, and that unescaping gives the parts back.
func assertRecordPath(t *testing.T, path, stream, record string) {
	t.Helper()
	u, err := url.Parse(path)
	require.NoError(t, err, path)
	assert.Empty(t, u.RawQuery, "no query can be smuggled in: %s", path)
	assert.Empty(t, u.Fragment, "no fragment can be smuggled in: %s", path)
	segs := strings.Split(u.EscapedPath(), "/")
	require.Len(t, segs, 6, path)
	assert.Equal(t, []string{"", "v1", "streams", "records"}, []string{segs[0], segs[1], segs[2], segs[4]})
	gotStream, err := url.PathUnescape(segs[3])
	require.NoError(t, err)
	gotRecord, err := url.PathUnescape(segs[5])
	require.NoError(t, err)
	assert.Equal(t, stream, gotStream)
	assert.Equal(t, record, gotRecord)
	for _, s := range []string{segs[3], segs[5]} {
		assert.NotEqual(t, ".", s)
		assert.NotEqual(t, "..", s)
	}
}

func TestScopeString(t *testing.T) {
	assert.Equal(t, "unscoped", ScopeUnscoped.String())
	assert.Equal(t, "embedded", ScopeEmbedded.String())
	assert.Equal(t, "explicit", ScopeExplicit.String())
	assert.Equal(t, "default", ScopeDefault.String())
	assert.Equal(t, "Scope(9)", Scope(9).String())
}

func TestZeroFetchRequest(t *testing.T) {
	var r FetchRequest
	assert.Empty(t, r.RecordPath())
	assert.Empty(t, r.Query())
	assert.Equal(t, ScopeUnscoped, r.Scope)
}
