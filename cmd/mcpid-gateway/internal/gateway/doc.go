// Package gateway is the engine of mcpid-gateway: the flags (Run parses
// them), the naming chains of tools and prompts, the routing of each call
// to its downstream, the relay of prompts, resources, completion and logs,
// and health. docs/gateway.md gives the rules it keeps.
package gateway
