package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"
)

// The outcomes of a relayed call that are not an error code: the
// downstream answered with a result, or with a tool error of its own. A
// call that failed on the way has the code of the gateway's envelope as
// its outcome (resource_unavailable, call_refused, invalid_arguments).
const (
	outcomeOK        = "ok"
	outcomeToolError = "tool_error"
)

// logCall logs one line for a relayed call: the downstream, the tool's own
// name there, the name it was called by, the outcome and the duration. A
// call that failed on the way (the downstream is down, did not answer
// within the timeout, or refused the call) is a warning with its error;
// any other is info, so that -log-level warn keeps only the failures.
func (g *gateway) logCall(st servedTool, name, outcome string, d time.Duration, err error) {
	level, attrs := slog.LevelInfo, []slog.Attr{
		slog.String("server", st.key.Server),
		slog.String("tool", st.key.Tool),
		slog.String("name", name),
		slog.String("outcome", outcome),
		slog.Duration("duration", d),
	}
	if err != nil {
		level, attrs = slog.LevelWarn, append(attrs, slog.Any("err", err))
	}
	g.cfg.logger.LogAttrs(context.Background(), level, "gateway: call", attrs...)
}

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
	// A session of one request: a level set on it (see askedLevel) is
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
