package searchfetch

import (
	"log/slog"
	"time"

	"github.com/mcpid/mcpid"
)

// Mode selects the contract the two tools follow.
type Mode uint8

// The modes of [Options.Mode].
const (
	// ModeDefault: fetch takes id and an optional connection_id, and the
	// search text is the prose preview (the zero value).
	ModeDefault Mode = iota
	// ModeChatGPT: OpenAI's search and fetch contract. search takes exactly
	// {"query"}, fetch exactly {"id"}, and each answers with one text item
	// holding JSON.
	ModeChatGPT
)

// String returns "default" or "chatgpt".
func (m Mode) String() string {
	if m == ModeChatGPT {
		return "chatgpt"
	}
	return "default"
}

// DefaultTimeout is how long a backend call may take when
// [Options.Timeout] is zero.
const DefaultTimeout = 30 * time.Second

// Options configures [New]. The zero value, and a nil *Options, mean the
// defaults.
type Options struct {
	// Mode is the contract of the tools: ModeDefault or ModeChatGPT.
	Mode Mode
	// Preview configures the search text. Format is set by Mode, and Total
	// and HasMore come from the backend's SearchResult; the other fields
	// (budget, hit count, field caps) are used as given.
	Preview mcpid.PreviewOptions
	// Timeout bounds each backend call; 0 means DefaultTimeout and a
	// negative value means no bound beyond the request's context.
	Timeout time.Duration
	// SearchDescription and FetchDescription replace the tools' default
	// descriptions when not empty: say what the sources hold, so that a
	// model knows when to search them. The defaults explain the ids.
	SearchDescription string
	FetchDescription  string
	// Logger, when set, records the backend failures that reach the model
	// only as a generic envelope: errors that are not an *mcpid.Error,
	// panics and timeouts.
	Logger *slog.Logger
}
