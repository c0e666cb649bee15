// Package gateway is the engine of mcpid-gateway: the flags (Run parses
// them), the configuration and the start, the served tables and the
// routing of each call to its downstream (one tools/call reads in call.go
// and relay.go), and the relay of prompts, resources, completion and
// logs. It keeps its names with package naming, tells its health through
// package health, and applies package relay's URI forms and log levels.
// docs/gateway.md gives the rules it keeps.
package gateway
