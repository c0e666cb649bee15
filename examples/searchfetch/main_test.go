package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/cmdtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioSubprocess: the built command, run with -stdio, serves the
// tools of each SDK to the go-sdk client over its CommandTransport, and
// exits when the client closes its stdin.
func TestStdioSubprocess(t *testing.T) {
	bin := cmdtest.Build(t, ".")

	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
			defer cancel()
			var stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, bin, "-stdio", "-sdk", sdk)
			cmd.Stderr = &stderr
			cmd.WaitDelay = 5 * time.Second
			client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
			require.NoError(t, err, "stderr: %s", &stderr)
			s := &session{cs: cs}

			text, _ := s.ok(t, "search", map[string]any{"query": demoOpaqueQuery})
			ids := mcpid.ExtractIDs(text)
			assert.Equal(t, []string{opaqueWikiID, opaqueFileID}, ids)
			for _, id := range ids {
				s.ok(t, "fetch", map[string]any{"id": id})
			}
			e := s.toolError(t, "fetch", map[string]any{"id": "cin_4f2a/orders:../../etc/passwd"})
			assert.ErrorIs(t, e, mcpid.ErrInvalidID)

			require.NoError(t, cs.Close())
			assert.Contains(t, stderr.String(), "MCP on stdio with "+sdk+"; resource server http://127.0.0.1:")
			assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "stderr: %s", &stderr)
		})
	}
}

// TestHTTPMode: the command run with -http serves the tools of each SDK
// over streamable HTTP on loopback, and stops cleanly when its context
// ends. The bounds of the HTTP server are tested with the serve package.
func TestHTTPMode(t *testing.T) {
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			endpoint := cmdtest.StartHTTP(t, func(ctx context.Context, stderr io.Writer) error {
				return run(ctx, []string{"-http", "127.0.0.1:0", "-sdk", sdk}, nil, nopCloser{new(bytes.Buffer)}, stderr)
			})
			mc := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil)
			cs, err := mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
			require.NoError(t, err)
			defer cs.Close()
			s := &session{cs: cs}
			text, _ := s.ok(t, "search", map[string]any{"query": demoOpaqueQuery})
			ids := mcpid.ExtractIDs(text)
			assert.Equal(t, []string{opaqueWikiID, opaqueFileID}, ids)
			s.ok(t, "fetch", map[string]any{"id": ids[0]})
		})
	}
}

// TestRunFlags: bad flags and flag combinations are refused before
// anything starts.
func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"both modes", []string{"-stdio", "-http", "127.0.0.1:0"}, "usage"},
		{"stray argument", []string{"extra"}, "usage"},
		{"unknown flag", []string{"-nope"}, "usage"},
		{"unknown SDK", []string{"-sdk", "other"}, "usage"},
		{"public address", []string{"-http", "0.0.0.0:8080"}, "usage"},
		{"bad resource server URL", []string{"-rs", "ftp://x"}, "resource server URL"},
		{"zero timeout", []string{"-timeout", "0s"}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, nil, nopCloser{&stdout}, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Empty(t, stdout.String())
		})
	}
}

// nopCloser is a writer with a Close that does nothing.
type nopCloser struct{ *bytes.Buffer }

// Close does nothing.
func (nopCloser) Close() error { return nil }

// TestDemo: with no mode flag, each SDK prints the whole journey, the same
// but for its first line; in ChatGPT mode it stops after the fetches by
// id, which are all that mode allows.
func TestDemo(t *testing.T) {
	common := []string{
		`→ search {"query":"espresso"}`,
		"ExtractIDs(text)[0] = cin_4f2a/orders:o1",
		`→ fetch {"id":"cin_4f2a/orders:o1"}`,
		"resource server saw: GET /v1/streams/orders/records/o1?connection_id=cin_4f2a\n",
		`→ search {"query":"descaling"}`,
		`→ fetch {"id":"cin_9b1c/:https://wiki.example.com/p/7"}`,
		"resource server saw: GET /v1/records?connection_id=cin_9b1c&id=https%3A%2F%2Fwiki.example.com%2Fp%2F7\n",
		`→ fetch {"id":"cin_d21e/:files:reports/q3.pdf"}`,
		"resource server saw: GET /v1/records?connection_id=cin_d21e&id=files%3Areports%2Fq3.pdf\n",
	}
	full := append(slices.Clone(common),
		`→ fetch {"id":"orders:o1"}`,
		`"code": "ambiguous_connection"`,
		"resource server saw: GET /v1/streams/orders/records/o1\n",
		`→ fetch {"connection_id":"cin_9b7e","id":"orders:o1"}`,
		`"id": "orders:o1"`,
		`→ fetch {"connection_id":"cin_other","id":"cin_4f2a/orders:o1"}`,
		`"code": "conflicting_connection_id"`,
		"resource server saw: nothing",
	)
	var transcripts []string
	for _, sdk := range sdks {
		for _, chatgpt := range []bool{false, true} {
			name := sdk
			args := []string{"-sdk", sdk}
			want := full
			if chatgpt {
				name += "/chatgpt"
				args = append(args, "-chatgpt")
				want = common
			}
			t.Run(name, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				require.NoError(t, run(t.Context(), args, nil, nopCloser{&stdout}, &stderr))
				out := stdout.String()
				assert.Empty(t, stderr.String())
				missing := 0
				for _, w := range want {
					if !strings.Contains(out, w) {
						t.Errorf("the transcript lacks %q", w)
						missing++
					}
				}
				if missing > 0 {
					t.Logf("transcript:\n%s", out)
				}
				if chatgpt {
					assert.NotContains(t, out, `→ fetch {"connection_id"`)
					return
				}
				_, rest, _ := strings.Cut(out, "\n")
				transcripts = append(transcripts, rest)
			})
		}
	}
	require.Len(t, transcripts, len(sdks))
	assert.Equal(t, transcripts[0], transcripts[1], "both SDKs give the same answers")
}

// TestSealKeyFile: -seal-key-file turns sealing on with the key in the
// file, its trailing line break left out; a missing, unreadable or short
// key file stops the command at start with a clear error.
func TestSealKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	good := write("key", "0123456789abcdef0123456789abcdef\n")
	s, err := loadSealer(good)
	require.NoError(t, err)
	want, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	assert.Equal(t, want.Seal("cin_4f2a/orders:o1"), s.Seal("cin_4f2a/orders:o1"))

	s, err = loadSealer("")
	require.NoError(t, err)
	assert.Nil(t, s, "no file, no sealing")

	for name, tc := range map[string]struct{ path, msg string }{
		"missing":    {filepath.Join(dir, "nope"), "no such file"},
		"unreadable": {dir, "is a directory"},
		"short":      {write("short", "0123456789abcde\r\n"), "the key has 15 bytes; it needs at least 16"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(t.Context(), []string{"-stdio", "-seal-key-file", tc.path}, io.NopCloser(strings.NewReader("")), nopWriteCloser{io.Discard}, &stderr)
			require.ErrorContains(t, err, tc.msg)
			require.ErrorContains(t, err, "-seal-key-file")
		})
	}
}

// nopWriteCloser is an io.WriteCloser whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
