// Package serve is what the repository's commands (the examples and
// mcpid-gateway) share to serve MCP: their -stdio and -http flags, the
// loopback-only http.Server, with its timeouts, around the HTTP handlers
// of gosdk and mcpgo (which bound sessions and bodies themselves), and
// the exit codes of main. It needs no SDK: each command passes its
// Limits to its SDK's handler options itself.
package serve
