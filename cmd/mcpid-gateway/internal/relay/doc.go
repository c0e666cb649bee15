// Package relay is what the gateway relays beyond tools.
//
// [Kinds] relays the downstreams' prompts (named in a chain of their own,
// prompts.go), resources and resource templates (served under the URI
// forms, read and subscribed to by URI, resources.go) and completion
// (completion.go): the engine (package gateway) builds it with what it
// needs of the engine ([Engine]), hands it each downstream's session to
// list, and routes the requests to it; one prompts/get, resources/read,
// resources/subscribe or completion/complete reads in its file and
// kinds.go.
//
// The rest are rules that need no engine state: the forms in which a
// gateway with several downstreams shows resource URIs, so that a read
// routes home ([Forms], uriform.go), the log levels a stateless caller
// asked for, and to whom a downstream's sampling and elicitation
// requests go.
package relay
