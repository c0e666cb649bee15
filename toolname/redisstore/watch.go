package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// Watch subscribes to the chain's channel and returns a channel that
// receives the revision of each table stored after Watch returned, by
// any replica ([Store.Swap] publishes it). Revisions may be coalesced: a
// receiver that falls behind finds only the latest, and reloads. When
// the connection to Redis is lost, go-redis subscribes again as soon as
// it can, and Watch then sends the chain's revision of that moment (the
// empty revision for a chain that is gone), since tables may have been
// stored meanwhile. The channel is closed when ctx ends. Watch returns an
// error when it cannot subscribe.
func (s *Store) Watch(ctx context.Context) (<-chan toolname.Revision, error) {
	if s.chain == "" {
		return nil, ErrNoChain
	}
	sub := s.client.Subscribe(ctx, s.key)
	// The confirmation: from here on, no publication is missed.
	if _, err := sub.Receive(ctx); err != nil {
		sub.Close()
		return nil, s.wrap(err)
	}
	out := make(chan toolname.Revision, 1)
	go s.forward(ctx, sub, out)
	return out, nil
}

// Watch's pause after a failed receive doubles from watchRetryMin up to
// watchRetryMax, so that a Redis that is down is not hammered.
const (
	watchRetryMin = 50 * time.Millisecond
	watchRetryMax = 2 * time.Second
)

// forward sends each revision sub receives to out until ctx ends, then
// closes sub and out.
func (s *Store) forward(ctx context.Context, sub *redis.PubSub, out chan toolname.Revision) {
	defer close(out)
	// Receive does not end when ctx does: closing the subscription ends it.
	stop := context.AfterFunc(ctx, func() { sub.Close() })
	defer func() {
		if stop() {
			sub.Close()
		}
	}()
	pause := watchRetryMin
	for {
		msg, err := sub.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if errors.Is(err, redis.ErrClosed) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, watchRetryMax)
			continue
		}
		pause = watchRetryMin
		switch m := msg.(type) {
		case *redis.Message:
			chainguard.Offer(out, toolname.Revision(m.Payload))
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			// Subscribed again after a lost connection: tables may have
			// been stored meanwhile, so the receiver reloads once the
			// latest revision can be read.
			if !s.offerLatest(ctx, out) {
				return
			}
		}
	}
}

// offerLatest sends the chain's latest revision to out, reading it again
// with backoff until it can, and reports false when ctx ended first.
func (s *Store) offerLatest(ctx context.Context, out chan toolname.Revision) bool {
	pause := watchRetryMin
	for {
		rev, err := s.client.HGet(ctx, s.key, "rev").Result()
		if err == nil || errors.Is(err, redis.Nil) {
			chainguard.Offer(out, toolname.Revision(rev))
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pause):
		}
		pause = min(2*pause, watchRetryMax)
	}
}
