package serve

import (
	"flag"
	"fmt"
	"net"
	"net/netip"
)

// Mode is how a command serves MCP, as its -stdio and -http flags chose:
// over stdin and stdout, over streamable HTTP on a loopback address, or,
// with neither, not at all (a command then runs its demo).
type Mode struct {
	Stdio bool
	HTTP  string // the address to listen on; "" for none
	// MaxSessions is the -max-sessions bound of the -http mode.
	MaxSessions int
	// Remote, set before Register, lets -http listen on any address: the
	// command then decides itself who may call it (mcpid-gateway's
	// -auth-tokens). Without it, -http takes loopback addresses only.
	Remote bool
}

// Register defines -stdio, -http and -max-sessions on fs, stored in m.
func (m *Mode) Register(fs *flag.FlagSet) {
	fs.BoolVar(&m.Stdio, "stdio", false, "serve MCP over stdin and stdout")
	where := " (a loopback address)"
	if m.Remote {
		where = ""
	}
	fs.StringVar(&m.HTTP, "http", "", "serve MCP streamable HTTP at http://`ADDR`/mcp"+where)
	fs.IntVar(&m.MaxSessions, "max-sessions", DefaultLimits.MaxSessions, "with -http, the most MCP sessions open at once; beyond, a new one closes the one idle longest")
}

// Limits returns DefaultLimits with the session bound m chose.
func (m Mode) Limits() Limits {
	lim := DefaultLimits
	lim.MaxSessions = m.MaxSessions
	return lim
}

// Check returns a usage error, reported on fs's output, when both modes
// are chosen or the -http address is not host:port, or, unless m.Remote,
// not a loopback one.
func (m Mode) Check(fs *flag.FlagSet) error {
	if m.Stdio && m.HTTP != "" {
		return Usage(fs, "-stdio and -http are exclusive")
	}
	if m.MaxSessions < 1 {
		return Usage(fs, "-max-sessions %d: want at least 1", m.MaxSessions)
	}
	if m.HTTP != "" {
		check := CheckLoopback
		if m.Remote {
			check = func(addr string) error { _, _, err := net.SplitHostPort(addr); return err }
		}
		if err := check(m.HTTP); err != nil {
			return Usage(fs, "-http %q: %v", m.HTTP, err)
		}
	}
	return nil
}

// Demo reports whether no mode was chosen.
func (m Mode) Demo() bool { return !m.Stdio && m.HTTP == "" }

// CheckLoopback returns an error unless addr is host:port with a loopback
// host: an IP literal such as 127.0.0.1 or ::1, or localhost. The
// commands serve plain HTTP, without TLS (and, but for the searchfetch
// example's -grants, without authentication), so they never listen where
// another machine can reach them.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("not a loopback address; the commands serve plain HTTP, without TLS")
}
