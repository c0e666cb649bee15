// Command searchfetch is an MCP server with the search and fetch tools of
// github.com/mcpid/mcpid/searchfetch over a resource server: what a server
// author writes is its backend (backend.go, over the resource client of
// resource.go), and one Register call of the adapter for the chosen SDK,
// the official go-sdk (gosdk.go) or mark3labs/mcp-go (mcpgo.go). Both give
// the same tools and the same answers.
//
// Run it from the repository root:
//
//	go run -C examples ./searchfetch                        # the demo journey
//	go run -C examples ./searchfetch -sdk mcpgo -chatgpt    # the same, on mcp-go, in ChatGPT mode
//	go run -C examples ./searchfetch -stdio                 # MCP over stdio
//	go run -C examples ./searchfetch -http 127.0.0.1:8080   # streamable HTTP at /mcp
//	go run -C examples ./searchfetch -http 127.0.0.1:8080 -grants grants.json  # only for the bearer tokens it names
//	go run -C examples ./searchfetch -otel                  # the demo, with its traces and metrics on stderr
//
// With no mode flag it runs a demo: the go-sdk client calls the tools in
// process, over the same newline-delimited JSON-RPC as -stdio, as a model
// would, and the transcript is printed: the search text, the id taken
// back out of it with [mcpid.ExtractIDs] and fetched alone, the opaque
// handles of a URL id and of a key with '/', a legacy fetch that is
// ambiguous and its retry with connection_id (decoded into an
// [mcpid.Error]), and a fetch whose connection_id contradicts the id.
// -chatgpt serves OpenAI's search and fetch contract instead, where fetch
// takes only an id; the demo then stops after the fetches by id.
//
// Without -rs, the resource server is an in-process fixture on 127.0.0.1
// at a free port (fixture.go): its connections cin_4f2a and cin_9b7e both
// hold a record orders:o1, cin_9b1c holds the wiki page
// https://wiki.example.com/p/7 and cin_d21e the file files:reports/q3.pdf.
// With -seal-key-file FILE, search seals every id it shows with the key
// in FILE and fetch opens it first (see [mcpid.Sealer]): a missing,
// unreadable or short key file stops the command at start. With -rs URL,
// the tools call that resource server instead, which must
// serve the API described in resource.go. Every request to it gives up
// after -timeout, and the client keeps enough idle connections to reuse
// them under load.
//
// The -http mode serves through gosdk.NewHTTPHandler or
// mcpgo.NewHTTPHandler, listens on loopback addresses only, as this
// example has no TLS, and is bounded for a network as the gateway example
// is (serve.DefaultLimits): at most -max-sessions sessions, sessions idle
// for 10 minutes are closed, request bodies are capped at 1 MiB, and slow
// or idle connections are cut off by ReadHeaderTimeout, ReadTimeout and
// IdleTimeout. -stateless keeps no session between requests, so that
// replicas (with the same -seal-key-file) serve one conversation behind a
// load balancer without affinity. -grants FILE demonstrates authorization
// (grants.go): every request needs a bearer token that FILE names (401
// otherwise), verified by the go-sdk's bearer-token middleware or by
// mcpgo's Verify, and searchfetch.Options.Authorize lets each caller
// see and fetch only the connections its token grants; any other fetch is
// forbidden before the resource server is asked. Tool arguments of the wrong shape are answered as
// invalid_arguments tool errors in mcpid's envelope with both SDKs; only a
// call to a tool that does not exist, or a malformed JSON-RPC message, gets
// the SDK's own JSON-RPC error, which no tool handler sees.
//
// -otel wires searchfetch.Options.OnCall, which hears every tool call
// once with its outcome, to OpenTelemetry (otel.go): a span per call and
// one for its backend call, a count of calls by tool and outcome, of
// search hits shown, dropped and denied, and a latency histogram, all
// written to stderr as JSON by OpenTelemetry's stdout exporters. A server
// swaps those for its collector's exporters.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/searchfetch"
)

func main() {
	serve.Main("searchfetch", func(ctx context.Context) error {
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	})
}

// config is what the command line chose.
type config struct {
	serve.Mode
	sdk     string // "gosdk" or "mcpgo"
	chatgpt bool
	rsURL   string
	timeout time.Duration
	sealKey string // the -seal-key-file
	// grants is the -grants file; stateless, -stateless: both for -http.
	grants    string
	stateless bool
	otel      bool // -otel
}

// parseFlags parses args into a config. A problem is reported on stderr
// with the usage, and returned as [serve.ErrUsage].
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("searchfetch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.Mode.Register(fs)
	fs.StringVar(&c.sdk, "sdk", "gosdk", "the MCP SDK that serves the tools: `gosdk` or mcpgo")
	fs.BoolVar(&c.chatgpt, "chatgpt", false, "ChatGPT mode: search takes {query}, fetch takes {id}, both answer JSON text")
	fs.StringVar(&c.rsURL, "rs", "", "base `URL` of an external resource server (default: an in-process fixture on 127.0.0.1)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "bound on each request to the resource server")
	fs.StringVar(&c.sealKey, "seal-key-file", "", "seal the ids search shows with the key in `FILE` (at least 16 bytes; a trailing newline is not part of it), so that a mangled or made-up id is unknown_id")
	fs.StringVar(&c.grants, "grants", "", "with -http, serve only requests with a bearer token that `FILE` grants, and show and fetch only the connections it grants (a JSON object of tokens to lists of connection ids)")
	fs.BoolVar(&c.stateless, "stateless", false, "with -http, keep no session between requests, so that replicas behind a load balancer serve one conversation")
	fs.BoolVar(&c.otel, "otel", false, "trace every tool call and its backend call, and count and time the calls, with OpenTelemetry, written to stderr as JSON")
	if err := serve.Parse(fs, args); err != nil {
		return c, err
	}
	if c.sdk != "gosdk" && c.sdk != "mcpgo" {
		return c, serve.Usage(fs, "-sdk %q: want gosdk or mcpgo", c.sdk)
	}
	if c.HTTP == "" && (c.grants != "" || c.stateless) {
		return c, serve.Usage(fs, "-grants and -stateless need -http")
	}
	return c, c.Mode.Check(fs)
}

// run parses args and runs the chosen mode until it ends or ctx is done.
// The demo transcript goes to stdout; diagnostics go to stderr, which in
// -stdio mode is the only place they may go.
func run(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	sealer, err := loadSealer(c.sealKey)
	if err != nil {
		return err
	}
	var g grants
	if c.grants != "" {
		if g, err = loadGrants(c.grants); err != nil {
			return err
		}
	}
	var fx *fixture
	base := c.rsURL
	if base == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("starting the fixture resource server: %w", err)
		}
		var stopFixture func()
		fx, base, stopFixture = startFixture(ln)
		defer stopFixture()
	}
	rc, err := newResourceClient(base, c.timeout)
	if err != nil {
		return err
	}
	var logger *slog.Logger
	if !c.Demo() {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	var more []func(*searchfetch.Options)
	if c.otel {
		tm, stop, err := startStdoutTelemetry(stderr)
		if err != nil {
			return err
		}
		defer stopTelemetry(stop, stderr)
		more = append(more, func(o *searchfetch.Options) { o.OnCall = tm.onCall })
	}
	s := newMCPServer(c.sdk, rc, c.chatgpt, sealer, logger, g != nil, more...)

	switch {
	case c.Stdio:
		fmt.Fprintf(stderr, "searchfetch: MCP on stdio with %s; resource server %s\n", c.sdk, base)
		return s.serveStream(ctx, stdin, stdout)
	case c.HTTP != "":
		ln, err := net.Listen("tcp", c.HTTP)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "searchfetch: serving with %s; resource server %s\n", c.sdk, base)
		hc := httpConfig{lim: c.Limits(), stateless: c.stateless, grants: g}
		return serve.Serve(ctx, serve.NewServer(s.handler(hc), hc.lim), ln, "searchfetch", stderr)
	}
	return runDemo(ctx, s, c, fx, base, stdout)
}

// loadSealer returns the Sealer of the key in the file at path, or nil
// when path is "". The key is the file's bytes without a trailing line
// break, so that a key written by a text editor or by
// "openssl rand -hex 32 > FILE" is what it looks like.
func loadSealer(path string) (*mcpid.Sealer, error) {
	if path == "" {
		return nil, nil
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-seal-key-file: %w", err)
	}
	key = bytes.TrimRight(key, "\r\n")
	if len(key) < mcpid.MinSealKeyLen {
		return nil, fmt.Errorf("-seal-key-file %s: the key has %d bytes; it needs at least %d", path, len(key), mcpid.MinSealKeyLen)
	}
	return mcpid.NewSealer(key)
}
