// Package serve is how the gateway serves MCP: its -stdio and -http
// flags, the loopback-only http.Server, with its timeouts, around the
// go-sdk's HTTP handler (which bounds sessions and bodies itself), and the
// exit codes of main.
package serve
