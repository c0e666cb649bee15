package searchfetch

import (
	"context"
	"sync/atomic"
)

// MaxHungCalls roughly bounds the backend calls of one [Tools] that outlive
// their timeout and still run: beyond it, new calls are answered
// resource_unavailable at once, without reaching the backend.
const MaxHungCalls = 1024

// maxIdleWorkers is how many workers wait for a call between calls: as
// many calls as run at once on a busy server find one waiting, and a
// burst beyond it starts workers that end after their call.
const maxIdleWorkers = 128

// workers is the process's pool, shared by every Tools.
var workers = pool{idle: make(chan *worker, maxIdleWorkers)}

// pool runs backend calls on reused goroutines, so that a call can be
// answered at its deadline while its backend runs on: a call costs two
// switches between goroutines rather than a new goroutine. A worker whose
// call outlives its deadline is retired: it ends when its call returns,
// and the next call takes another worker or starts one, so hung backends
// never hold the workers that others need. Only [MaxHungCalls] bounds the
// goroutines that hung calls hold.
type pool struct {
	idle chan *worker
	// live counts the workers that have started and not ended, idle,
	// busy or hung.
	live atomic.Int64
}

// runner is a call that a worker runs.
type runner interface{ run() }

// A worker's states while it runs a call.
const (
	busy    = iota // running a call whose caller waits
	settled        // done in time: its caller takes the outcome
	retired        // its caller left at the deadline: it ends when the call does
)

// worker is one goroutine of the pool.
type worker struct {
	calls chan runner   // the calls to run, one at a time
	done  chan struct{} // a value when a call is done in time
	state atomic.Uint32
	// hung is the count of the Tools whose call the worker runs, which it
	// decrements when a retired call returns.
	hung *atomic.Int64
}

// run runs r on a worker and returns nil once r has run, or ctx's error
// when ctx is done first: r then runs on, its outcome unread, and hung
// counts it until it returns.
func (p *pool) run(ctx context.Context, hung *atomic.Int64, r runner) error {
	w := p.get()
	w.hung = hung
	w.state.Store(busy)
	w.calls <- r
	select {
	case <-w.done:
		p.put(w)
		return nil
	case <-ctx.Done():
	}
	hung.Add(1)
	if w.state.CompareAndSwap(busy, retired) {
		return ctx.Err()
	}
	// r was done as the deadline came: its outcome is as good as any.
	hung.Add(-1)
	<-w.done
	p.put(w)
	return nil
}

// get returns an idle worker, or a new one when none is idle.
func (p *pool) get() *worker {
	select {
	case w := <-p.idle:
		return w
	default:
	}
	w := &worker{calls: make(chan runner), done: make(chan struct{}, 1)}
	p.live.Add(1)
	go p.loop(w)
	return w
}

// put makes w idle, or ends it when enough workers are.
func (p *pool) put(w *worker) {
	w.hung = nil
	select {
	case p.idle <- w:
	default:
		close(w.calls)
	}
}

// loop is the goroutine of w: it runs w's calls until put ends it or a
// call it runs is retired.
func (p *pool) loop(w *worker) {
	defer p.live.Add(-1)
	for r := range w.calls {
		r.run()
		if !w.state.CompareAndSwap(busy, settled) {
			w.hung.Add(-1) // retired: no one waits for the outcome
			return
		}
		w.done <- struct{}{}
	}
}
