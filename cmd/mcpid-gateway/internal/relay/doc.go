// Package relay holds the rules of what the gateway relays beyond tools
// that need no engine state: the forms in which a gateway with several
// downstreams shows resource URIs (so that a read routes home), the log
// levels a stateless caller asked for, and to whom a downstream's
// sampling and elicitation requests go. The engine (package gateway)
// applies them to what it lists, routes and sends.
package relay
