package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// Watch listens on the chain's channel and returns a channel that
// receives the revision of each table stored after Watch returned, by
// any replica ([Store.Swap] notifies it). Revisions may be coalesced: a
// receiver that falls behind finds only the latest, and reloads. Watch
// takes a connection of its own out of the pool. When that connection is
// lost, Watch listens again on a new one as soon as it can, and then
// sends the chain's revision of that moment (the empty revision for a
// chain that is gone), since tables may have been stored meanwhile. The
// channel is closed, and the connection with it, when ctx ends. Watch
// returns an error when it cannot listen.
func (s *Store) Watch(ctx context.Context) (<-chan toolname.Revision, error) {
	conn, err := s.listen(ctx)
	if err != nil {
		return nil, s.wrap(err)
	}
	out := make(chan toolname.Revision, 1)
	go s.forward(ctx, conn, out)
	return out, nil
}

// listen takes a connection out of the pool and listens on the chain's
// channel on it.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	conn := pc.Hijack()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// closeConn closes a connection that Watch took, with a bound of its own:
// the Watch's context may be over.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Close(ctx)
}

// Watch's pause after a lost connection doubles from watchRetryMin up to
// watchRetryMax, so that a server that is down is not hammered.
const (
	watchRetryMin = 50 * time.Millisecond
	watchRetryMax = 2 * time.Second
)

// forward sends each revision notified on conn to out until ctx ends,
// listening again on a new connection when conn is lost; then it closes
// the connection and out.
func (s *Store) forward(ctx context.Context, conn *pgx.Conn, out chan toolname.Revision) {
	defer close(out)
	defer func() {
		if conn != nil {
			closeConn(conn)
		}
	}()
	pause := watchRetryMin
	for {
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, watchRetryMax)
			c, err := s.listen(ctx)
			if err != nil {
				continue
			}
			// Listening again: tables may have been stored meanwhile, so
			// the receiver reloads; a connection that cannot tell the
			// latest revision is dropped and listening starts over.
			var rev string
			err = c.QueryRow(ctx, `SELECT rev FROM `+Table+` WHERE chain = $1`, s.chain).Scan(&rev)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				closeConn(c)
				continue
			}
			conn, pause = c, watchRetryMin
			chainguard.Offer(out, toolname.Revision(rev))
		}
		n, err := conn.WaitForNotification(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			closeConn(conn)
			conn = nil
			continue
		}
		chainguard.Offer(out, toolname.Revision(n.Payload))
	}
}
