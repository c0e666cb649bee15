package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
)

// newLogger returns the gateway's logger: slog's text or JSON handler
// (-log-format text or json) on w, at -log-level debug, info, warn or
// error.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil || strings.ContainsAny(level, "+-") {
		return nil, errors.New("want debug, info, warn or error")
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, errors.New("want text or json")
}

// sessionLines are the messages the SDK logs at Info as each session
// opens and closes. A -stateless gateway opens and closes a session for
// every request, so at Info they would be three lines a request, around
// the one line of a call that says what happened; it logs them at Debug.
var sessionLines = map[string]bool{
	"server connecting":           true,
	"server session connected":    true,
	"server session disconnected": true,
	"session initialized":         true,
	// A session of one request: a level set on it (see relay.AskedLevel) is
	// the request's.
	"client log level set": true,
}

// quietSessions is the handler of a -stateless gateway's SDK logger: the
// sessionLines at Debug, every other record as it is.
type quietSessions struct{ slog.Handler }

func (h quietSessions) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && sessionLines[r.Message] {
		r.Level = slog.LevelDebug
		if !h.Handler.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietSessions) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietSessions{h.Handler.WithAttrs(attrs)}
}

func (h quietSessions) WithGroup(name string) slog.Handler {
	return quietSessions{h.Handler.WithGroup(name)}
}
