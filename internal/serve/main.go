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

// Main runs run with a context that ends on an interrupt or SIGTERM, and
// exits as a command line tool does: 0 on success or -help, 2 after a
// usage error, and 1 after any other error, which it prints to stderr
// after the command's name.
func Main(name string, run func(ctx context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
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
