// Package serve is what the example commands share to serve MCP: their
// -stdio and -http flags, the loopback-only http.Server, with its
// timeouts, around the HTTP handlers of gosdk and mcpgo (which bound
// sessions and bodies themselves), and the exit codes of main.
//
// It is internal to the examples module: the examples are models people
// copy, and this is the part each of them would otherwise write again.
package serve
