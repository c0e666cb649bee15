// Package downstream is the machinery with which the gateway
// (cmd/mcpid-gateway) reaches its downstream MCP servers, kept apart from
// its naming so that a reader of the engine sees the names in a few short
// files.
//
// It holds:
//   - [Command], a transport that runs a server as a subprocess in a
//     process group of its own, reaps it, and kills the group of one that
//     does not exit; its writes to the server's stdin never block a caller
//     past the caller's context, and its reader drops the lines that are
//     not JSON-RPC ([GuardedTransport]) instead of ending the session;
//   - [Env], the environment a subprocess gets, and [SplitWords], the
//     POSIX word splitter for a -server command line;
//   - [Relay], which passes a downstream's progress notifications and log
//     messages on to the callers whose calls they belong to, and tells
//     which caller owns every call in flight ([Relay.Owner]);
//   - [Child], one downstream as the gateway runs it (its session, what
//     it lists, the signals of its start), which the engine (package
//     gateway) connects and lists and the relay of prompts, resources and
//     completion (package relay) reads; with [Latch], [AwaitStart] and
//     [UnavailableError], which tell a request of a starting gateway to
//     wait, or to come back.
//
// It is internal to the gateway's module; a gateway author copies from it
// what a gateway of theirs needs.
package downstream
