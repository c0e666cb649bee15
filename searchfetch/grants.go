package searchfetch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpid/mcpid"
)

// maxAuthorizing is the most authorizations a search runs at once. A
// backend may return thousands of hits of as many connections; every
// count the model reads covers only hits the caller may read, so the
// search asks about the connection of every hit, within one deadline.
const maxAuthorizing = 8

// verdict is what a search knows of the caller's right to read one
// connection.
type verdict uint8

const (
	allowed   verdict = iota // the caller may read it
	refused                  // the caller may not: its hits count nowhere
	undecided                // no answer in time, or an answer that decides nothing
)

// grants are the verdicts of a search's connections.
type grants struct {
	// all is set without an authorizer: every connection is allowed.
	all   bool
	index map[string]int // connection → its position in conns
	conns []string
	got   []verdict
	errs  []error // why a connection is undecided
}

// allowAll are the grants of a search without an authorizer.
var allowAll = grants{all: true}

// of returns the verdict on conn, a connection of the search's hits,
// and, when undecided, the answer that decided nothing (the authorizer's
// *mcpid.Error, or a deadline).
func (g *grants) of(conn string) (verdict, error) {
	if g.all {
		return allowed, nil
	}
	i := g.index[conn]
	return g.got[i], g.errs[i]
}

// authorizeHits asks Options.Authorize about every distinct connection of
// hits, in hit order, maxAuthorizing at once, all bounded by one
// deadline: the timeout from start, the start of the search. A connection
// whose verdict has not arrived by then is undecided, and so is one the
// deadline leaves unasked: counts never depend on a hit the authorizer
// did not allow. Without an authorizer every connection is allowed and
// nothing is asked.
func (t *Tools) authorizeHits(ctx context.Context, start time.Time, hits []mcpid.Hit) *grants {
	if t.opts.Authorize == nil {
		return &allowAll
	}
	g := &grants{index: make(map[string]int)}
	for i := range hits {
		c := hits[i].ConnectionID
		if _, ok := g.index[c]; ok {
			continue
		}
		g.index[c] = len(g.conns)
		g.conns = append(g.conns, c)
	}
	g.got = make([]verdict, len(g.conns))
	g.errs = make([]error, len(g.conns))
	if len(g.conns) == 0 {
		return g
	}
	if t.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(t.opts.Timeout))
		defer cancel()
	}
	var next atomic.Int64
	ask := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(g.conns) {
				return
			}
			g.decide(i, t.askRead(ctx, g.conns[i]))
		}
	}
	// One connection, the usual case, is asked on this goroutine.
	var wg sync.WaitGroup
	for range min(len(g.conns), maxAuthorizing) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ask()
		}()
	}
	ask()
	wg.Wait()
	return g
}

// askRead asks the authorizer whether the caller may read conn, unless
// the search's deadline has passed.
func (t *Tools) askRead(ctx context.Context, conn string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return t.authorize(ctx, Access{Tool: t.opts.SearchName, ConnectionID: conn})
}

// decide records the authorizer's answer err on connection i.
func (g *grants) decide(i int, err error) {
	switch {
	case err == nil:
		g.got[i] = allowed
	case denied(err):
		g.got[i] = refused
	default:
		g.got[i], g.errs[i] = undecided, err
	}
}
