// Package gateway is the engine of mcpid-gateway: the flags (Run parses
// them), the configuration and the start, each downstream's lifecycle
// (connect, list, restart: downstream.go), the served tools' table and
// the routing of each call to its downstream (one tools/call reads in
// call.go and relay.go), HTTP serving, drain, and the wiring of health
// and metrics. It keeps its names with package naming, tells its health
// through package health and its metrics through package metrics, runs
// each downstream as a downstream.Child, and builds a relay.Kinds that
// relays the prompts, resources, subscriptions and completion.
// docs/gateway.md gives the rules it keeps.
package gateway
