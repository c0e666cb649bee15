package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// ErrUsage marks an error that has already been reported on the command's
// stderr together with its usage.
var ErrUsage = errors.New("usage")

// Main runs run with a context that ends on the first interrupt or
// SIGTERM, and exits as a command line tool does: 0 on success or -help,
// 2 after a usage error, and 1 after any other error, which it prints to
// stderr after the command's name. A second interrupt or SIGTERM, while
// run is still stopping, exits at once with 128 plus the signal's number
// (130, 143), the status a shell gives a process the signal killed: an
// operator who asks twice does not wait for a graceful stop.
func Main(name string, run func(ctx context.Context) error) {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-signals
		cancel()
		sig := <-signals
		fmt.Fprintf(os.Stderr, "%s: %v again: exiting at once\n", name, sig)
		os.Exit(SignalStatus(sig))
	}()
	err := run(ctx)
	signal.Stop(signals)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// SignalStatus is the exit status of a process that Main stops at once on
// sig: 128 plus its number, as a shell reports a process the signal
// killed.
func SignalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// Parse parses args with fs, which must report its errors itself (flag.ContinueOnError). It
// returns flag.ErrHelp for -help, ErrUsage for any other error the flag
// package has reported, and a usage error for positional arguments, which
// no command takes.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return ErrUsage
	}
	if fs.NArg() > 0 {
		return Usage(fs, "unexpected arguments: %q", fs.Args())
	}
	return nil
}

// Usage reports a problem with the command line, and the usage, on fs's
// output, and returns ErrUsage.
func Usage(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), format+"\n", a...)
	fs.Usage()
	return ErrUsage
}
