// Command gateway is an MCP gateway built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): it connects to downstream MCP
// servers and serves all their tools to its own clients, under names from
// the mcpid library's toolname package.
//
// It is a reference for gateway authors, not an operator product: it has
// no client authentication, and reaches downstreams over stdio only (no
// HTTP downstreams). It relays the server side of the protocol its
// downstreams speak (see Relayed, below), and adds no tools of its own. A call whose
// message was handed to a downstream that then stopped reading may still
// reach it once it reads again, after its caller was told
// resource_unavailable: as with any timeout, the tool may have run.
//
// # Names
//
// Many servers offer a tool named search. The gateway names each tool with
// [toolname.Assign]: a tool keeps its own name while no other server has
// one of that name, and is otherwise qualified as server__tool
// (-qualify all qualifies every tool, as the MCP specification advises
// aggregators). The names are valid for the provider chosen with -profile
// (portable, the default, is valid for all of them); -max-len lowers the
// limit to leave room for a client's own prefix, such as Claude Code's
// mcp__<server>__ within 64. A name that must be cut keeps the tool's own
// name and loses part of the server's. Each call is routed by looking its
// name up in the table, never by parsing it. A call by a downstream's own
// tool name that the gateway qualified, as MCP Apps and prompts make, is
// routed with [toolname.Table.Route] when exactly one live tool has that
// name, and is an ambiguous_tool error naming the candidates otherwise.
//
// Names are never reused, even across faults. On every change (a
// downstream's notifications/tools/list_changed, a server joining, dying
// or coming back), the names come from [toolname.Update], which continues
// the chain in the store named by -state and stores a table there before
// it is served whenever it gives a tool a name the chain never held: no
// tool is renamed, and no name is ever given to another tool. Should the
// store fail (a full disk, a database that cannot be reached), the new
// names are not served: the gateway keeps serving the last stored table,
// logs why, and tries again with backoff. A store whose value is not a
// table stops the gateway with an error; it never starts a new chain in
// silence. Without -state the names last as long as the process.
//
// # Replicas
//
// -state FILE keeps the chain in a file ([toolname.NewFileStore]) that one
// gateway locks for itself: a second one exits with an error. Replicas
// behind a load balancer share a chain in Redis (-state redis://… or
// rediss://…) or PostgreSQL (-state postgres://… or postgresql://…), the
// URL given to go-redis or pgx as it is, under -chain NAME (default
// mcpid). Every replica then serves the same name for the same tool,
// whichever server started or listed first; a call reaches that tool or
// is an unknown tool, on any replica (a name a replica does not serve yet
// is looked up in the store once, within a second whatever the store
// does and within the call's -timeout, and routed only to a tool it lists under the very key the chain
// gave that name; a miss is remembered for at most 2 s, and forgotten when
// the store tells of a new table, so that a hung store costs a guessed
// name a second, not -timeout); a replica killed at any moment loses
// nothing, since the store is the truth. A replica hears of another's
// table at once (Redis pub/sub, PostgreSQL LISTEN/NOTIFY) and reloads; it
// writes only to name tools of its own. While the store is down, the
// stored names keep routing and new tools wait, unlisted. The chain
// records -profile, -qualify and -max-len: a replica started with others
// does not start (it exits with status 1 and toolname's chain_mismatch
// error, naming both), compared with the store's table, or with the
// -backup table while the store cannot be reached; with neither, it starts,
// and exits so as soon as a naming round loads the chain.
//
// Without -stateless, an MCP session lives on the replica that opened it:
// the load balancer must send every request of a session to that replica
// (affinity on the Mcp-Session-Id header), or the others answer 404.
// With -stateless, each request is served whole by itself, as MCP
// 2026-07-28 has it, so that any replica answers any request: a caller's
// logs come through its request's own level (_meta), on every protocol
// version (a request without one gets no logs), progress on the
// request's own stream, and what needs a session is refused with an error
// (resource subscriptions; a downstream's sampling and elicitation
// requests). On the -http listener, /healthz answers 200 while the process
// serves, and /readyz answers 200 once the first tools/list is answered at
// once (the first naming round is done, or -start-timeout passed) and
// while a held table routes, whether the store is up, down or refused; 503
// before, or while no table is held (the store never reached, and no
// -backup). Its JSON body names the state, the store's as the last naming
// round or probe found it (the store is probed every 5 s, each probe
// within 5 s or -timeout, so the body says "down" within 10 s of an
// outage): {"status":"ready","store":"down","tools":12}.
//
// -backup FILE keeps, on local disk, the last table loaded from or stored
// in the store, in a file store of its own ([toolname.NewFileStore]:
// written atomically, and locked, so each gateway keeps its own). A store that holds less than it (emptied by a restart
// without persistence, another chain, an older table restored), or a
// table that does not continue it (a name it gives dropped, or given to
// another tool: a fork that a replica started after a restore wrote, or
// an edit by hand, even at the backup's generation), is refused with
// toolname's rollback error, logged: the gateway serves the backup's
// names, routes no call through the store and names no new tool until the
// store holds the chain again. The store is trusted like the gateway's own
// disk; -backup is what protects a replica that restarts after a restore
// or an edit, since without it the replica has nothing to compare with.
// The chain is put back on purpose only: -seed FILE stores a backup, or a
// state file, as the first table of an EMPTY chain, and FILE.prompts as
// the first of the prompts' (also how a gateway moves from a state file
// to Redis or PostgreSQL), then runs as usual. Both chains are checked
// empty before either is written: a -seed that fails seeds neither.
//
// The start checks the stores (a value that is not a table, naming options
// other than the chain's) within one -timeout in all; with -http, /healthz
// answers from the moment the listener exists, and MCP requests wait for
// the start.
//
// The first tools/list waits until every downstream has listed its tools
// (or failed to start) and their names are stored, or for -start-timeout
// (default 10 s, at most -timeout); it then answers with what is stored
// (the backup's names while the store is down or refused). Clients that
// list once see every tool; later listings never wait.
// A request that routes by a name (tools/call, prompts/get,
// resources/read, completion/complete, resources/subscribe) during the
// start, to a name the stored table holds or while no table is stored
// yet, waits in the same way for the first listing of the downstream the
// name belongs to (or the chain's first round), so that a replica that has
// just started never answers "unknown tool" for a tool it is about to
// serve; past -start-timeout it answers resource_unavailable, which says
// to try again (a tool error for tools/call, the envelope as the JSON-RPC
// error's data for the others).
//
// # Faults
//
// A fault costs only the faulty downstream's tools, for at most -timeout:
//   - a call to a downstream that does not answer, or that stopped reading
//     its stdin, answers resource_unavailable within -timeout: writes to
//     its stdin never block a caller past its deadline;
//   - a line on a downstream's stdout that is not JSON-RPC is logged and
//     dropped; the session goes on. So is a line over 4 MiB (a result, or
//     a page of tools/list), so that one line costs no more than that: the
//     call it answered then ends at -timeout;
//   - a downstream that dies, or fails to start, is started again with
//     backoff (100 ms, doubling at each failure, never beyond -timeout nor
//     30 s, and back to 100 ms once a restarted session has listed its
//     tools and answered a call); its tools stay listed and answer
//     resource_unavailable meanwhile, and when it comes back with other
//     tools, clients get tools/list_changed. An outage after a crash
//     thus costs at most the wait (within -timeout), the start and the
//     first listing (each within -timeout): a server that crashes every
//     3 s under -timeout 5s is back within a few hundred milliseconds
//     while it serves calls between crashes, and at worst 5 s plus its
//     start;
//   - the first tools/list waits at most -start-timeout for slow
//     downstreams; the others are served then, and the slow ones join when
//     they answer;
//   - one downstream can make the gateway hold at most 1,000 live tools and
//     10,000 distinct tools over the chain's life (beyond, its new tools are
//     refused with a warning naming it; names already given are kept);
//     a tool whose schemas exceed 64 KiB is skipped with a warning;
//   - relists of one downstream are coalesced, one at a time and at most
//     four a second; a relist that changes nothing stores nothing and
//     notifies no one; calls never wait on a relist or the store.
//   - a panic on a request's path (a handler, a middleware, the goroutine
//     that relays a call's notifications) costs that request alone: it is
//     answered with the JSON-RPC internal error -32603 and logged at Error
//     with the method.
//
// A failure on the way to a downstream is a tool error with the mcpid JSON
// envelope (resource_unavailable; invalid_arguments for arguments that are
// not a JSON object; call_refused, quoting at most 200 bytes, for a
// downstream's JSON-RPC refusal). The envelope is the text of content[],
// and structuredContent too for tools that declare no outputSchema: a
// client validates a tool's structuredContent against its outputSchema,
// errors included. A downstream's own tool errors come back as they are,
// and so do the progress notifications it sends during a call, to that
// call's caller, and its log messages as the relay rules below allow.
//
// # Relayed
//
// Beyond tools, the gateway relays what its downstreams serve, so that a
// client sees through it what it would see directly (docs/gateway-relay.md
// has the whole of it; make conformance measures it with the official MCP
// conformance suite):
//   - prompts (prompts/list, prompts/get), under names kept exactly as tool
//     names are, in a second chain: "<chain>/prompts" in Redis and
//     PostgreSQL (so -chain may hold no "/"), "<FILE>.prompts" beside the
//     -state, -backup and -seed files (-seed needs both), kept by the very
//     rules of the tools' chain: its backup refuses a fork or an edit, a
//     mismatch of options stops the gateway, and a lookup is bounded;
//   - resources and templates (resources/list, resources/templates/list,
//     resources/read, resources/subscribe and unsubscribe, and their update
//     notifications): with one -server, every URI as the downstream wrote
//     it; with several, every URI and template in the form
//     mcpid:<server, percent-encoded>:<uri>, whatever is up, so that a URI
//     routes only to the downstream it names on every replica and at any
//     time; a bare URI is then an error listing the forms that cover it.
//     Every URI inside a downstream's results and notifications is written
//     in its form, so a link followed reaches the downstream it came from;
//   - completion/complete, routed by the prompt or template it completes;
//   - logs: every relayed request asks its downstream for every level, and
//     each message reaches the caller as its level asks (logging/setLevel,
//     or the request's _meta on MCP 2026-07-28); a caller that asked for no
//     level gets none. A log message, sampling or elicitation request names
//     no call: it reaches a caller only when every call in flight to that
//     downstream is that caller's (the same session, or the same verified
//     user), and otherwise goes to no one (a request gets an error the
//     downstream handles); sampling and elicitation only reach a session
//     that initialized declaring them. Every relayed request counts as its
//     caller's call, and one the gateway stopped waiting for (-timeout, or
//     cancelled) counts until the downstream answers it, its connection
//     ends, or one more -timeout has passed (MCP asks a server not to
//     answer a cancelled request).
//
// The gateway logs to stderr with log/slog, as text or JSON (-log-format),
// at -log-level and above (info by default; the demo logs warnings only):
// one line per relayed call, msg "gateway: call", with the downstream
// (server), its own tool name (tool), the name called (name), the outcome
// (ok, tool_error, or the envelope's code: resource_unavailable,
// call_refused, invalid_arguments) and the duration; a call that failed
// on the way is a warning, with its error (err).
//
// # Running it
//
// Run it from the repository root:
//
//	go run -C examples ./gateway                     # the demo
//	go run -C examples ./gateway -stdio -state names.json \
//	    -server 'docs=/usr/local/bin/docs-mcp --root "/srv/my docs"' \
//	    -server 'tickets=/usr/local/bin/tickets-mcp' -env 'tickets=TOKEN=…'
//	go run -C examples ./gateway -http 127.0.0.1:8080 -server ...   # streamable HTTP at /mcp
//	go run -C examples ./gateway -http 127.0.0.1:8080 -state redis://redis.internal:6379/0 \
//	    -backup /var/lib/gateway/names.json -stateless -log-format json \
//	    -server ...                                  # one of several replicas
//
// Each -server is one argument, NAME=COMMAND ARG...: the command line is
// split into words as a POSIX shell splits them, quotes and backslashes
// included, with no expansion ($, ~ and * are plain characters), and run
// as a subprocess that speaks MCP on its stdin and stdout. A downstream
// inherits only PATH, HOME and the locale (LANG, LANGUAGE, LC_*) from the
// gateway's environment; -env NAME=KEY=VALUE sets a variable for the
// server NAME alone, so that a secret meant for one server is not readable
// by another. With no -server, the gateway uses an in-process demo set of
// servers whose tool names collide. With no mode flag it runs the demo: it
// prints the names, a routed call, a server joining without renaming
// anyone, and a restart from the stored table.
//
// The -http mode listens only on loopback addresses (this example has no
// authentication), bounds request bodies, cuts off slow and idle clients,
// ends sessions left idle for -session-timeout, and serves at most
// -max-sessions sessions at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpid/mcpid/examples/internal/downstream"
	"github.com/mcpid/mcpid/examples/internal/serve"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/toolname"
)

func main() {
	serve.Main("gateway", func(ctx context.Context) error {
		return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	})
}

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
}

// serverFlag is one -server: a name and a command line, with the -env
// variables given for it.
type serverFlag struct {
	name string
	argv []string
	env  []string // KEY=VALUE
}

// parseArgs parses the command line. A problem is reported on stderr with
// the usage, and returned as [serve.ErrUsage].
func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{limits: serve.DefaultLimits}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Func("server", "a downstream server, `NAME=COMMAND ARG...` (one argument, split into words as a shell does, quotes included, with no expansion); repeatable", func(v string) error {
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
	profile := fs.String("profile", "portable", "tool-name rule: portable, openai, anthropic, gemini or mcp")
	qualify := fs.String("qualify", "collision", "collision: qualify a tool as server__tool only when needed; all: always")
	maxLen := fs.Int("max-len", 0, "the longest name, `N` bytes, below the profile's own limit: leaves room for a client's prefix (Claude Code's mcp__<server>__ within 64)")
	fs.StringVar(&o.state, "state", "", "where the names live: a `FILE` (one gateway), or a redis://, rediss://, postgres:// or postgresql:// URL shared by every replica; each name is stored there before it is served")
	fs.StringVar(&o.chain, "chain", "mcpid", "the `NAME` of the chain in a Redis or PostgreSQL store")
	fs.StringVar(&o.cfg.backupPath, "backup", "", "keep the last table of the store in `FILE`, and refuse a store that holds less (emptied, another chain, an older table) or a table that does not continue it")
	fs.StringVar(&o.seed, "seed", "", "store the table in `FILE` (a backup, or a state file) as the first of an empty chain, then run")
	fs.DurationVar(&o.cfg.startTimeout, "start-timeout", defaultStartTimeout, "how long the first tools/list waits for every server's tools to be named (at most -timeout)")
	o.Mode.Register(fs)
	fs.DurationVar(&o.cfg.timeout, "timeout", 30*time.Second, "bound on starting a downstream server, listing its tools, and each call")
	fs.DurationVar(&o.limits.SessionIdle, "session-timeout", o.limits.SessionIdle, "end HTTP sessions idle for this long")
	fs.BoolVar(&o.cfg.stateless, "stateless", false, "with -http, serve each request by itself, with no session, so that any replica answers any request (logs come through each request's _meta level; subscriptions, sampling and elicitation are refused)")
	fs.StringVar(&o.logFormat, "log-format", "text", "the log's format on stderr: text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "the least level logged: debug, info (one line per relayed call), warn or error")
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
	if o.cfg.timeout <= 0 || o.limits.SessionIdle <= 0 || o.cfg.startTimeout <= 0 {
		return nil, serve.Usage(fs, "-timeout, -start-timeout and -session-timeout must be positive")
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
	o.limits.MaxSessions = o.MaxSessions
	if o.Demo() && len(o.servers) > 0 {
		return nil, serve.Usage(fs, "-server needs -stdio or -http; the demo uses its own servers")
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
	s.env = append(s.env, kv)
	return nil
}

// parseServer parses one -server value.
func parseServer(v string) (serverFlag, error) {
	name, command, ok := strings.Cut(v, "=")
	if !ok || name == "" || !utf8.ValidString(name) {
		return serverFlag{}, fmt.Errorf("%q: want NAME=COMMAND ARG..., with a non-empty NAME", v)
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
	return downstreamSpec{name: s.name, transport: &downstream.Command{
		Argv:   s.argv,
		Env:    downstream.Env(environ, s.env),
		Stderr: stderr,
		Server: s.name,
		Logger: logger,
	}}
}

// seedChains stores the table in the file at path as the first table of
// the tools' chain, and the one at path+".prompts" as the first of the
// prompts' chain, within timeout. Both files are read, and both chains
// checked empty, before either is written: a -seed that would fail on
// one chain seeds neither, so that it can be run again as it is once the
// operator has emptied both (toolname.Seed still refuses a chain written
// meanwhile). run calls it before the stores hold their backups, which
// would refuse a load of an empty chain.
func seedChains(ctx context.Context, path string, timeout time.Duration, tools, prompts toolname.Store) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	chains := []struct {
		store toolname.Store
		path  string
		names *toolname.Table
	}{{tools, path, nil}, {prompts, path + promptsSuffix, nil}}
	for i := range chains {
		c := &chains[i]
		names, err := readTable(c.path)
		if err == nil && names == nil {
			err = fmt.Errorf("%s: no such file", c.path)
		}
		if err != nil {
			return fmt.Errorf("-seed: %w", err)
		}
		c.names = names
		held, _, err := c.store.Load(ctx)
		if err == nil && held != nil {
			err = &toolname.Error{Code: toolname.CodeChainNotEmpty, Index: -1, Offset: -1}
		}
		if err != nil {
			return fmt.Errorf("-seed %s: nothing seeded: %w", c.path, err)
		}
	}
	for _, c := range chains {
		if _, err := toolname.Seed(ctx, c.store, c.names); err != nil {
			return fmt.Errorf("-seed %s: %w", c.path, err)
		}
	}
	return nil
}

// run parses args and runs the chosen mode until it ends or ctx is done.
// The demo goes to stdout; logs go to stderr, which in -stdio mode is the
// only place they may go.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	// With -http, the listener serves /healthz from now on (see
	// startingHTTP); MCP requests wait until the gateway is started.
	var web *startingHTTP
	closeHTTP := func() error { return nil }
	var httpEnded chan struct{} // closed when the listener stops serving
	if o.HTTP != "" {
		ln, err := net.Listen("tcp", o.HTTP)
		if err != nil {
			return err
		}
		web = newStartingHTTP()
		httpCtx, stopHTTP := context.WithCancel(ctx)
		ended := make(chan struct{})
		httpEnded = ended
		var httpErr error
		go func() {
			defer close(ended)
			httpErr = serve.Serve(httpCtx, serve.NewServer(web, o.limits), ln, "gateway", stderr)
		}()
		closeHTTP = sync.OnceValue(func() error {
			web.fail()
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
	store, closeStore, err := openStore(checkCtx, o.state, o.chain)
	if err != nil {
		return err
	}
	defer closeStore()
	o.cfg.store = store
	promptStore, closePromptStore, err := openStore(checkCtx, promptState(o.state), o.chain+"/prompts")
	if err != nil {
		return err
	}
	defer closePromptStore()
	o.cfg.promptStore = promptStore
	if o.seed != "" {
		if err := seedChains(ctx, o.seed, o.cfg.timeout, store, promptStore); err != nil {
			return err
		}
	}
	if err := holdBackup("tool", store, o.cfg.backupPath); err != nil {
		return err
	}
	if err := checkStore(checkCtx, store, o.state, o.cfg.timeout); err != nil {
		return err
	}
	if err := holdBackup("prompt", promptStore, promptBackup(o.cfg.backupPath)); err != nil {
		return err
	}
	if err := checkStore(checkCtx, promptStore, promptState(o.state), o.cfg.timeout); err != nil {
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
	if err := g.checkNaming(checkCtx); err != nil {
		return err
	}
	cancelChecks()
	specs := demoServers()
	if len(o.servers) > 0 {
		specs = specs[:0]
		for _, s := range o.servers {
			specs = append(specs, s.spec(os.Environ(), stderr, o.cfg.logger))
		}
	}
	if err := g.start(ctx, specs); err != nil {
		return err
	}
	if o.Stdio {
		err := g.srv.Run(ctx, gosdk.NewStdioTransport(os.Stdin, os.Stdout))
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
	web.serve(g.handler(o.limits, o.cfg.stateless))
	select {
	case <-ctx.Done():
	case <-httpEnded:
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
