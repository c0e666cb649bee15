package gateway

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/health"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/toolname"
)

// profiles are the values of -profile.
var profiles = map[string]toolname.Profile{
	"portable":  toolname.Portable,
	"openai":    toolname.OpenAI,
	"anthropic": toolname.Anthropic,
	"gemini":    toolname.Gemini,
	"mcp":       toolname.MCP,
}

// options are the parsed command line.
type options struct {
	serve.Mode
	cfg     config
	servers []serverFlag
	limits  serve.Limits
	state   string // -state: a file path, or a Redis or PostgreSQL URL
	chain   string // -chain
	seed    string // -seed
	// -log-format and -log-level; the demo logs warnings and errors
	// only, unless -log-level is given.
	logFormat, logLevel string
	auth                inboundAuth // -auth-tokens, -insecure-no-auth
	// -drain: with -http, how long a stopping gateway serves on with
	// /readyz at 503 (see drain.go).
	drain   time.Duration
	metrics string // -metrics: the address of /metrics' own listener; "" serves it on -http's
}

// serverFlag is one -server: a name and a command line, with the -env
// variables given for it.
type serverFlag struct {
	name string
	argv []string
	env  []string // KEY=VALUE
	// An HTTP downstream (see remote.go) has its URL instead of argv, its
	// -header fields, and what its transport is bounded by.
	url     string
	header  http.Header
	timeout time.Duration
	maxBody int64
	relist  time.Duration
}

// parseArgs parses the command line. A problem is reported on stderr with
// the usage, and returned as [serve.ErrUsage].
func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{limits: serve.DefaultLimits}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Func("server", "a downstream server, `NAME=COMMAND ARG...` (one argument, split into words as a shell does, quotes included, with no expansion) run over stdio, or NAME=URL, a streamable HTTP server at an http or https URL; repeatable", func(v string) error {
		s, err := parseServer(v)
		if err != nil {
			return err
		}
		if o.server(s.name) != nil {
			return fmt.Errorf("server %q given twice", s.name)
		}
		o.servers = append(o.servers, s)
		return nil
	})
	var envs []string
	fs.Func("env", "set a variable for one downstream, `NAME=KEY=VALUE` (NAME is a -server's); repeatable. Downstreams inherit only PATH, HOME and the locale", func(v string) error {
		envs = append(envs, v)
		return nil
	})
	// -header values are checked after the flags are parsed: the flag
	// package would echo a value it refused, and a value is a secret.
	var headers []string
	fs.Func("header", "send a header to one HTTP downstream, `NAME=Header-Name: value` (NAME is a -server's); ${VAR} in the value reads an environment variable; repeatable", func(v string) error {
		headers = append(headers, v)
		return nil
	})
	relist := fs.Duration("relist", 60*time.Second, "how often an HTTP downstream that keeps no session, and so cannot tell of changes, is listed again; 0: never")
	profile := fs.String("profile", "portable", "tool-name rule: portable, openai, anthropic, gemini or mcp")
	qualify := fs.String("qualify", "collision", "collision: qualify a tool as server__tool only when needed; all: always")
	maxLen := fs.Int("max-len", 0, "the longest name, `N` bytes, below the profile's own limit: leaves room for a client's prefix (Claude Code's mcp__<server>__ within 64)")
	fs.StringVar(&o.state, "state", "", "where the names live: a `FILE` (one gateway), or a redis://, rediss://, postgres:// or postgresql:// URL shared by every replica; each name is stored there before it is served")
	fs.StringVar(&o.chain, "chain", "mcpid", "the `NAME` of the chain in a Redis or PostgreSQL store")
	fs.StringVar(&o.cfg.backupPath, "backup", "", "keep the last table of the store in `FILE`, and refuse a store that holds less (emptied, another chain, an older table) or a table that does not continue it")
	fs.StringVar(&o.seed, "seed", "", "store the table in `FILE` (a backup, or a state file) as the first of an empty chain, then run")
	fs.DurationVar(&o.cfg.startTimeout, "start-timeout", defaultStartTimeout, "how long the first tools/list waits for every server's tools to be named (at most -timeout)")
	o.Mode.Remote = true // see inboundAuth.check
	o.Mode.Register(fs)
	o.auth.register(fs)
	fs.DurationVar(&o.cfg.timeout, "timeout", 30*time.Second, "bound on starting a downstream server, listing its tools, and each call")
	fs.DurationVar(&o.drain, "drain", defaultDrain, "with -http, on SIGTERM: how long /readyz answers 503 while every request is still served, before the listener closes (the time a load balancer's checks take to notice); calls in flight then have -timeout to be answered")
	fs.DurationVar(&o.limits.SessionIdle, "session-timeout", o.limits.SessionIdle, "end HTTP sessions idle for this long")
	fs.BoolVar(&o.cfg.stateless, "stateless", false, "with -http, serve each request by itself, with no session, so that any replica answers any request (logs come through each request's _meta level; subscriptions, sampling and elicitation are refused)")
	unknownTool := fs.String("unknown-tool", "result", "how a call to a name that routes to no tool is answered: result (a tool error with the unknown_tool envelope) or error (the JSON-RPC error -32602)")
	fs.StringVar(&o.logFormat, "log-format", "text", "the log's format on stderr: text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "the least level logged: debug, info (one line per relayed call), warn or error")
	fs.StringVar(&o.metrics, "metrics", "", "serve /metrics alone on a listener of its own at `ADDR`, without authentication (an internal address), instead of on the -http listener")
	if err := serve.Parse(fs, args); err != nil {
		return nil, err
	}
	if _, err := newLogger(io.Discard, o.logFormat, o.logLevel); err != nil {
		return nil, serve.Usage(fs, "-log-format %q -log-level %q: %v", o.logFormat, o.logLevel, err)
	}
	levelSet := false
	fs.Visit(func(f *flag.Flag) { levelSet = levelSet || f.Name == "log-level" })
	for _, v := range envs {
		if err := o.setEnv(v); err != nil {
			return nil, serve.Usage(fs, "-env %q: %v", v, err)
		}
	}
	for _, v := range headers {
		if err := o.setHeader(v, os.LookupEnv); err != nil {
			return nil, serve.Usage(fs, "-header: %v", err)
		}
	}
	if *relist < 0 {
		return nil, serve.Usage(fs, "-relist must not be negative")
	}
	p, ok := profiles[*profile]
	if !ok {
		return nil, serve.Usage(fs, "-profile %q: want portable, openai, anthropic, gemini or mcp", *profile)
	}
	if *maxLen != 0 {
		p.MaxLen = *maxLen
		if _, err := toolname.Assign(p, nil); err != nil {
			return nil, serve.Usage(fs, "-max-len %d: %v", *maxLen, err)
		}
	}
	o.cfg.profile = p
	switch *qualify {
	case "collision":
	case "all":
		o.cfg.qualifyAll = true
	default:
		return nil, serve.Usage(fs, "-qualify %q: want all or collision", *qualify)
	}
	switch *unknownTool {
	case "result":
	case "error":
		o.cfg.unknownToolError = true
	default:
		return nil, serve.Usage(fs, "-unknown-tool %q: want result or error", *unknownTool)
	}
	if o.cfg.timeout <= 0 || o.limits.SessionIdle <= 0 || o.cfg.startTimeout <= 0 {
		return nil, serve.Usage(fs, "-timeout, -start-timeout and -session-timeout must be positive")
	}
	if o.drain < 0 {
		return nil, serve.Usage(fs, "-drain %v: want 0 or more", o.drain)
	}
	if o.chain == "" || strings.Contains(o.chain, "/") {
		return nil, serve.Usage(fs, "-chain must be non-empty, without a \"/\": the prompts' chain is <chain>/prompts")
	}
	if (o.seed != "" || o.cfg.backupPath != "") && o.state == "" {
		return nil, serve.Usage(fs, "-seed and -backup need -state: the store to seed, or to back up")
	}
	if err := o.Mode.Check(fs); err != nil {
		return nil, err
	}
	if err := o.auth.check(fs, o.Mode); err != nil {
		return nil, err
	}
	o.limits.MaxSessions = o.MaxSessions
	for i := range o.servers {
		if o.servers[i].url == "" {
			continue
		}
		o.servers[i].timeout, o.servers[i].maxBody, o.servers[i].relist = o.cfg.timeout, o.limits.MaxBody, *relist
	}
	if o.Demo() && (len(o.servers) > 0 || o.metrics != "") {
		return nil, serve.Usage(fs, "-server and -metrics need -stdio or -http; the demo uses its own servers")
	}
	if o.cfg.stateless && o.HTTP == "" {
		return nil, serve.Usage(fs, "-stateless needs -http")
	}
	if o.Demo() && !levelSet {
		o.logLevel = "warn"
	}
	return o, nil
}

// server returns the -server named name, or nil.
func (o *options) server(name string) *serverFlag {
	for i := range o.servers {
		if o.servers[i].name == name {
			return &o.servers[i]
		}
	}
	return nil
}

// setEnv applies one -env value, NAME=KEY=VALUE.
func (o *options) setEnv(v string) error {
	name, kv, ok := strings.Cut(v, "=")
	key, _, ok2 := strings.Cut(kv, "=")
	if !ok || !ok2 || key == "" || strings.ContainsRune(kv, 0) {
		return errors.New("want NAME=KEY=VALUE, with a non-empty KEY")
	}
	s := o.server(name)
	if s == nil {
		return fmt.Errorf("no -server is named %q", name)
	}
	if s.url != "" {
		return fmt.Errorf("-server %q is an HTTP server, which runs no process", name)
	}
	s.env = append(s.env, kv)
	return nil
}

// setHeader applies one -header value (see parseHeader), reading its
// variables with lookup. Its errors never hold the value.
func (o *options) setHeader(v string, lookup func(string) (string, bool)) error {
	h, err := parseHeader(v, lookup)
	if err != nil {
		return err
	}
	s := o.server(h.server)
	switch {
	case s == nil:
		return fmt.Errorf("no -server is named %q", h.server)
	case s.url == "":
		return fmt.Errorf("-server %q runs a command over stdio, which takes no header", h.server)
	case reservedHeaders[h.name]:
		return fmt.Errorf("server %q: the transport sets %s itself", h.server, h.name)
	}
	if s.header == nil {
		s.header = http.Header{}
	}
	s.header.Add(h.name, h.value)
	return nil
}

// parseServer parses one -server value.
func parseServer(v string) (serverFlag, error) {
	name, command, ok := strings.Cut(v, "=")
	if !ok || name == "" || !utf8.ValidString(name) {
		return serverFlag{}, fmt.Errorf("%q: want NAME=COMMAND ARG... or NAME=URL, with a non-empty NAME", v)
	}
	if u, ok := remoteURL(command); ok {
		return serverFlag{name: name, url: u.String()}, nil
	}
	argv, err := downstream.SplitWords(command)
	if err != nil {
		return serverFlag{}, fmt.Errorf("%q: %v", v, err)
	}
	if len(argv) == 0 {
		return serverFlag{}, fmt.Errorf("%q: no command after %q", v, name+"=")
	}
	return serverFlag{name: name, argv: argv}, nil
}

// spec returns the downstream that s starts: its command as a subprocess
// speaking MCP over stdio, with the inherited part of environ and its own
// variables, its stderr passed on to the gateway's.
func (s serverFlag) spec(environ []string, stderr io.Writer, logger *slog.Logger) downstreamSpec {
	if s.url != "" {
		return downstreamSpec{name: s.name, transport: newRemoteLink(s.name, s.url, s.header, s.timeout, s.maxBody, s.relist)}
	}
	return downstreamSpec{name: s.name, transport: &downstream.Command{
		Argv:   s.argv,
		Env:    downstream.Env(environ, s.env),
		Stderr: stderr,
		Server: s.name,
		Logger: logger,
	}}
}

// Run parses args (the command line, without the program name) and runs the chosen mode until it ends or ctx is done.
// The demo goes to stdout; logs go to stderr, which in -stdio mode is the
// only place they may go.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	if o.cfg.logger, err = newLogger(stderr, o.logFormat, o.logLevel); err != nil {
		return err
	}
	if o.Demo() {
		return runDemo(ctx, o, stdout)
	}
	keepHeapFloor()
	stopObserving, err := observe(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer stopObserving()
	// With -http, the listener serves /healthz from now on (see
	// health.Starting); MCP requests wait until the gateway is started.
	var web *health.Starting
	closeHTTP := func() error { return nil }
	var httpEnded chan struct{} // closed when the listener stops serving
	// streams ends the event streams when the listener shuts down (see
	// drain.go).
	streams, closeStreams := context.WithCancel(context.Background())
	defer closeStreams()
	if o.HTTP != "" {
		tokens, err := o.auth.open(ctx, o.HTTP, o.cfg.logger)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", o.HTTP)
		if err != nil {
			return err
		}
		web = health.NewStarting()
		// The listener stops when Run does, after the drain, not when ctx
		// ends.
		httpCtx, stopHTTP := context.WithCancel(context.WithoutCancel(ctx))
		ended := make(chan struct{})
		httpEnded = ended
		var httpErr error
		hs := serve.NewServer(behindTokens(tokens, endStreams(web, streams)), o.limits)
		hs.RegisterOnShutdown(closeStreams)
		go func() {
			defer close(ended)
			httpErr = serve.ServeGrace(httpCtx, hs, ln, "gateway", stderr, o.cfg.timeout)
		}()
		closeHTTP = sync.OnceValue(func() error {
			web.Fail()
			stopHTTP()
			<-ended
			return httpErr
		})
		defer closeHTTP()
	}
	// The start's checks of the stores share one deadline, -timeout: a
	// hung store delays the start by -timeout, not by -timeout per check.
	checkCtx, cancelChecks := context.WithTimeout(ctx, o.cfg.timeout)
	defer cancelChecks()
	store, closeStore, err := chainstore.Open(checkCtx, o.state, o.chain)
	if err != nil {
		return err
	}
	defer closeStore()
	o.cfg.store = store
	promptStore, closePromptStore, err := chainstore.Open(checkCtx, promptState(o.state), o.chain+"/prompts")
	if err != nil {
		return err
	}
	defer closePromptStore()
	o.cfg.promptStore = promptStore
	if o.seed != "" {
		if err := naming.Seed(ctx, o.seed, o.seed+promptsSuffix, o.cfg.timeout, store, promptStore); err != nil {
			return err
		}
	}
	if err := naming.HoldBackup("tool", store, o.cfg.backupPath); err != nil {
		return err
	}
	if err := chainstore.Check(checkCtx, store, o.state, o.cfg.timeout); err != nil {
		return err
	}
	if err := naming.HoldBackup("prompt", promptStore, promptBackup(o.cfg.backupPath)); err != nil {
		return err
	}
	if err := chainstore.Check(checkCtx, promptStore, promptState(o.state), o.cfg.timeout); err != nil {
		return err
	}
	// A fatal error (see config.fatal) ends serving, and is the result.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	fatal := make(chan error, 1)
	o.cfg.fatal = func(err error) {
		select {
		case fatal <- err:
		default:
		}
		stop()
	}
	g, err := newGateway(o.cfg)
	if err != nil {
		return err
	}
	defer g.close()
	g.srv.AddReceivingMiddleware(endListens(streams))
	if err := g.checkNaming(checkCtx); err != nil {
		return err
	}
	cancelChecks()
	specs := o.specs(stderr)
	if err := g.start(ctx, specs); err != nil {
		return err
	}
	if o.Stdio {
		err := serveStdio(ctx, g.srv, os.Stdin, os.Stdout, o.cfg.timeout)
		select {
		case err := <-fatal:
			return err
		default:
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	web.Serve(g.handler(o.limits, o.cfg.stateless))
	select {
	case <-ctx.Done():
	case <-httpEnded:
	}
	if len(fatal) == 0 {
		g.drain(o.drain, httpEnded) // SIGTERM: see drain.go
	}
	if err := closeHTTP(); err != nil {
		return err
	}
	select {
	case err := <-fatal:
		return err
	default:
		return nil
	}
}
