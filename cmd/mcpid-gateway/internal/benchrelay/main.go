// Command benchrelay measures what a relayed tool call costs: the same
// tools/call made directly to a downstream MCP server, through a bare
// go-sdk relay (a server whose tools forward each call to a client
// session, the SDK's own cost of a second hop, with no naming), and
// through the gateway, each a process of its own, over loopback HTTP (the
// relays' downstream too, by default), all three stateful. The rounds are
// interleaved (direct, bare relay, gateway, direct, ...), so that each
// path sees the same moments of a shared machine; each round reports its
// p50, p99, calls per second and the CPU time per call of every process
// on its path (from /proc/PID/stat), and the table holds the median of
// the rounds.
//
// Usage (make bench-relay builds the gateway and runs it):
//
//	benchrelay -gateway PATH [-base PATH] [-rounds N] [-calls N] [-c 1,16] [-down http|stdio] [-cpuprofile FILE]
//
// -base measures a second gateway binary (a build before a change) as a
// fourth path, in the same interleaved rounds, so that a before and after
// see the same moments of the machine.
// -down chooses how both relays reach their downstream: http (the
// default: the downstream of the direct calls, over streamable HTTP, so
// that every hop is loopback HTTP) or stdio (each relay runs the
// downstream as its child). -cpuprofile writes a CPU profile of the
// gateway process, and one of the bare relay beside it (FILE.bare); the
// gateway is then the harness's own copy of it (the same engine, started
// with the profiler on).
//
// The harness runs itself as the downstream, the bare relay and the
// profiled gateway: "benchrelay downstream [-http ADDR]", "benchrelay
// relay -http ADDR [-cpuprofile FILE] -- DOWNSTREAM..." and "benchrelay
// gateway FILE ARGS...".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/gateway"
)

// toolName is the downstream's one tool, which every path calls.
const toolName = "search"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "benchrelay:", err)
		os.Exit(1)
	}
}

// run runs the role args name, or the benchmark.
func run(ctx context.Context, args []string) error {
	role := ""
	if len(args) > 0 {
		role = args[0]
	}
	switch role {
	case "downstream":
		fs := flag.NewFlagSet("downstream", flag.ContinueOnError)
		addr := fs.String("http", "", "serve streamable HTTP at `ADDR` (default: stdio)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return runDownstream(ctx, *addr)
	case "relay":
		fs := flag.NewFlagSet("relay", flag.ContinueOnError)
		addr := fs.String("http", "127.0.0.1:0", "serve streamable HTTP at `ADDR`")
		profile := fs.String("cpuprofile", "", "write a CPU profile of the relay to `FILE`")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			return errors.New("relay: no downstream after the flags")
		}
		return profiled(*profile, func() error { return runRelay(ctx, *addr, fs.Args()) })
	case "gateway":
		if len(args) < 2 {
			return errors.New("gateway: want a profile FILE, then the gateway's flags")
		}
		return runProfiledGateway(ctx, args[1], args[2:])
	}
	fs := flag.NewFlagSet("benchrelay", flag.ContinueOnError)
	var o benchOptions
	fs.StringVar(&o.gateway, "gateway", "", "the gateway binary, `PATH` (built from cmd/mcpid-gateway)")
	fs.StringVar(&o.base, "base", "", "another gateway binary, `PATH`, measured as a fourth path in the same rounds (a build before a change)")
	fs.IntVar(&o.rounds, "rounds", 8, "rounds per path and concurrency, `N` (the table holds their medians; at least 6)")
	fs.IntVar(&o.calls, "calls", 2000, "calls per round, `N`, shared by the callers")
	cs := fs.String("c", "1,16", "the concurrencies: callers sharing the one client session of each path")
	fs.StringVar(&o.down, "down", "http", "how the relays reach the downstream: http or stdio")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the gateway to `FILE` (the harness's copy of the gateway), and of the bare relay to FILE.bare")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(*cs, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 {
			return fmt.Errorf("-c %q: want positive integers, comma-separated", *cs)
		}
		o.c = append(o.c, c)
	}
	switch {
	case o.gateway == "" && o.cpuprofile == "":
		return errors.New("-gateway PATH is needed (or -cpuprofile, which runs the harness's copy)")
	case o.rounds < 6:
		return errors.New("-rounds must be at least 6")
	case o.down != "stdio" && o.down != "http":
		return fmt.Errorf("-down %q: want stdio or http", o.down)
	}
	for _, c := range o.c {
		if o.calls < c {
			return fmt.Errorf("-calls %d: want at least one call per caller (-c %d)", o.calls, c)
		}
	}
	return bench(ctx, o, os.Stdout)
}

// runProfiledGateway runs the gateway's engine with args, as the command
// does, writing a CPU profile of it to file until it ends.
func runProfiledGateway(ctx context.Context, file string, args []string) error {
	return profiled(file, func() error { return gateway.Run(ctx, args, io.Discard, os.Stderr) })
}

// profiled runs f, writing a CPU profile of the process to file until f
// returns; with file empty, it only runs f.
func profiled(file string, f func() error) error {
	if file == "" {
		return f()
	}
	w, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(w); err != nil {
		_ = w.Close()
		return err
	}
	err = f()
	pprof.StopCPUProfile()
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}
