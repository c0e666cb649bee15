// Package storetest checks that a [toolname.Store] keeps the promises
// that [toolname.Update] and the gateways built on it rely on. Every store
// runs it against the real thing (a file, a Redis server, a PostgreSQL
// database), never a model of it:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Harness{
//			Open:    func(t *testing.T, chain string) toolname.Store { ... },
//			Corrupt: func(t *testing.T, chain string, raw []byte) { ... },
//			Reset:   func(t *testing.T, chain string) { ... },
//		})
//	}
//
// Run checks, each in a subtest on chains of its own: an empty chain (and
// that a store value keeps the table of an unchanged revision); a
// swap on a stale revision; 16 concurrent writers on a small chain with
// overlapping keys (afterwards every key had one name over the whole
// history, and no name was held by two keys); one writer on a chain of
// 100,000 retired names; damaged values; the chain id and generation
// rules (a chain emptied or replaced under a live store value is
// [toolname.ErrRollback], and [toolname.Seed] only starts an empty
// chain); that a live store value refuses, by Load, by Update and after
// its watcher's notice, a table that does not continue the one it holds
// (a fork from a restored backup, a well-formed table edited by hand); a
// cancelled context; for a store that implements [toolname.Watcher],
// that a swap through one value is told to another; and, for one that
// implements [toolname.Holder], that a value started from a table (a
// restarted replica's backup) refuses a first load that does not continue
// it, and accepts that table once it is written back.
// It measures nothing by the clock.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpid/mcpid/toolname"
)

// Harness is how [Run] reaches a store.
type Harness struct {
	// Open returns a store value on the chain named chain: two calls with
	// one chain are two replicas' handles on it. A store that admits one
	// value per chain (the file store's lock refuses a second one) returns
	// the same value for every Open of a chain, and the cases that need
	// two handles run on that value. Open releases what it opened with
	// t.Cleanup. It is called only from the test's goroutine.
	Open func(t *testing.T, chain string) toolname.Store

	// Corrupt writes raw as the stored value of chain, as a damaged disk,
	// another program or a restored backup would, under the store values
	// already open. Nil skips the cases that need it.
	Corrupt func(t *testing.T, chain string, raw []byte)

	// Reset empties chain, as a store that lost its data would, under the
	// store values already open. Nil skips the cases that need it.
	Reset func(t *testing.T, chain string)
}

// Run runs the conformance cases against the stores h opens. Chains are
// named after the subtests, with a random suffix, so that runs on a shared
// server never meet.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil")
	}
	cases := []struct {
		name           string
		corrupt, reset bool
		run            func(s *suite, t *testing.T)
	}{
		{name: "EmptyChain", run: (*suite).emptyChain},
		{name: "StaleSwap", run: (*suite).staleSwap},
		{name: "ConcurrentWriters", run: (*suite).concurrentWriters},
		{name: "LongChain", run: (*suite).longChain},
		{name: "OptionsMismatch", run: (*suite).optionsMismatch},
		{name: "SeedOnlyEmpty", run: (*suite).seedOnlyEmpty},
		{name: "CancelledContext", run: (*suite).cancelledContext},
		{name: "Watcher", run: (*suite).watcher},
		{name: "DamagedValues", corrupt: true, run: (*suite).damagedValues},
		{name: "ResetIsRollback", reset: true, run: (*suite).resetIsRollback},
		{name: "OlderOrOtherChainIsRollback", corrupt: true, run: (*suite).olderIsRollback},
		{name: "ForkIsRollback", corrupt: true, run: (*suite).forkIsRollback},
		{name: "EditedTableIsRollback", corrupt: true, run: (*suite).editedIsRollback},
		{name: "HoldRefusesWhatDoesNotContinue", corrupt: true, reset: true, run: (*suite).holdRefuses},
	}
	suffix := randomSuffix(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			switch {
			case c.corrupt && h.Corrupt == nil:
				t.Skip("storetest: Harness.Corrupt is nil, so damaged and restored values are not checked")
			case c.reset && h.Reset == nil:
				t.Skip("storetest: Harness.Reset is nil, so a chain emptied under a live store is not checked")
			}
			c.run(&suite{h: h, prefix: chainName(t.Name()) + "-" + suffix}, t)
		})
	}
}

// suite is one case's view of the harness.
type suite struct {
	h      Harness
	prefix string
}

// chain returns the name of the case's chain called name.
func (s *suite) chain(name string) string { return s.prefix + "-" + name }

// open opens a store value on the case's chain called name.
func (s *suite) open(t *testing.T, name string) toolname.Store {
	t.Helper()
	st := s.h.Open(t, s.chain(name))
	if st == nil {
		t.Fatal("storetest: Harness.Open returned nil")
	}
	return st
}

// chainName makes a test's name into a chain name: letters, digits, '-'
// and '_' only, at most 80 bytes.
func chainName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 80 {
		b = b[len(b)-80:]
	}
	return string(b)
}

func randomSuffix(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return hex.EncodeToString(b[:])
}

// keys returns the keys of tools on server.
func keys(server string, tools ...string) []toolname.Key {
	out := make([]toolname.Key, len(tools))
	for i, tool := range tools {
		out[i] = toolname.Key{Server: server, Tool: tool}
	}
	return out
}

// mustUpdate runs Update and fails the test on an error.
func mustUpdate(t *testing.T, st toolname.Store, ks []toolname.Key, opts ...toolname.Option) (*toolname.Table, toolname.Revision) {
	t.Helper()
	n, rev, err := toolname.Update(context.Background(), st, toolname.Portable, ks, opts...)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return n, rev
}

// mustLoad runs Load and fails the test on an error.
func mustLoad(t *testing.T, st toolname.Store) (*toolname.Table, toolname.Revision) {
	t.Helper()
	n, rev, err := st.Load(context.Background())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return n, rev
}

// wantErr fails the test unless err matches target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one matching %v", what, err, target)
	}
}

// sameTable fails the test unless want and got are the same table: the
// same names, retired names, chain, generation and options.
func sameTable(t *testing.T, what string, want, got *toolname.Table) {
	t.Helper()
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("%s: the table differs from the one stored:\nwant %.300s\ngot  %.300s", what, wantJSON, gotJSON)
	}
}

func (s *suite) emptyChain(t *testing.T) {
	a, b := s.open(t, "c"), s.open(t, "c")
	n, rev := mustLoad(t, a)
	if n != nil || rev != "" {
		t.Fatalf("Load of an empty chain: %v, %q; want nil, \"\"", n, rev)
	}

	first, rev1 := mustUpdate(t, a, keys("github", "search", "create_issue"))
	if rev1 == "" {
		t.Fatal("Update of an empty chain stored nothing: revision \"\"")
	}
	if _, gen := first.Chain(); gen != 1 {
		t.Errorf("first table: generation %d, want 1", gen)
	}
	loaded, rev := mustLoad(t, b)
	if rev != rev1 {
		t.Errorf("Load through another value: revision %q, want %q", rev, rev1)
	}
	sameTable(t, "Load through another value", first, loaded)
	// The table of an unchanged revision is kept, not decoded again.
	if again, _ := mustLoad(t, b); again != loaded {
		t.Error("a second Load of an unchanged revision decoded the table again")
	}

	// Nothing new: nothing stored.
	again, rev2 := mustUpdate(t, b, keys("github", "search"))
	if rev2 != rev1 {
		t.Errorf("Update with no new name stored a table: revision %q, want %q", rev2, rev1)
	}
	if name, _ := again.Name(toolname.Key{Server: "github", Tool: "search"}); name != "search" {
		t.Errorf("github::search is %q, want search", name)
	}
	if _, rev := mustLoad(t, a); rev != rev1 {
		t.Errorf("after an Update with no new name: revision %q, want %q", rev, rev1)
	}

	// A new name: stored, one generation on.
	grown, rev3 := mustUpdate(t, b, keys("gitlab", "search"))
	if rev3 == rev1 || rev3 == "" {
		t.Errorf("Update with a new name: revision %q, want a new one", rev3)
	}
	if name, _ := grown.Name(toolname.Key{Server: "gitlab", Tool: "search"}); name != "gitlab__search" {
		t.Errorf("gitlab::search is %q, want gitlab__search", name)
	}
	latest, _ := mustLoad(t, a)
	id1, _ := first.Chain()
	id, gen := latest.Chain()
	if id != id1 || gen != 2 {
		t.Errorf("after a second store: chain %s generation %d, want %s generation 2", id, gen, id1)
	}
}

func (s *suite) staleSwap(t *testing.T) {
	a, b := s.open(t, "c"), s.open(t, "c")
	ctx := context.Background()
	mustUpdate(t, a, keys("a", "x"))
	old, oldRev := mustLoad(t, b)
	winner, winRev := mustUpdate(t, a, keys("a", "y"))

	loser, err := toolname.Assign(toolname.Portable, keys("b", "y"), toolname.WithPrevious(old))
	if err != nil {
		t.Fatal(err)
	}
	rev, err := b.Swap(ctx, oldRev, loser)
	wantErr(t, "Swap on a stale revision", err, toolname.ErrStale)
	if rev != "" {
		t.Errorf("Swap on a stale revision returned revision %q, want \"\"", rev)
	}
	_, err = b.Swap(ctx, "", loser)
	wantErr(t, "Swap on the empty revision of a chain that holds a table", err, toolname.ErrStale)
	_, err = b.Swap(ctx, "no-such-revision", loser)
	wantErr(t, "Swap on a made-up revision", err, toolname.ErrStale)

	latest, rev := mustLoad(t, b)
	if rev != winRev {
		t.Errorf("after stale swaps: revision %q, want %q", rev, winRev)
	}
	sameTable(t, "after stale swaps", winner, latest)

	// Update takes the stale revision in its stride.
	n, _ := mustUpdate(t, b, keys("b", "y"))
	if name, _ := n.Name(toolname.Key{Server: "b", Tool: "y"}); name != "b__y" {
		t.Errorf("b::y after a::y took y: %q, want b__y", name)
	}
}

// concurrentWriters is the number of writers, and rounds the Updates each
// makes, in the concurrent case.
const (
	concurrentWriters = 16
	rounds            = 4
)

func (s *suite) concurrentWriters(t *testing.T) {
	pool := append(append(append(keys("alpha", "search", "fetch", "list"), keys("beta", "search", "fetch", "get")...),
		keys("gamma", "search", "list", "x")...), keys("delta", "get", "x", "y")...)
	stores := make([]toolname.Store, concurrentWriters)
	for i := range stores {
		stores[i] = s.open(t, "c")
	}
	type seen struct {
		key  toolname.Key
		name string
	}
	var (
		mu   sync.Mutex
		all  []seen
		errs []error
		wg   sync.WaitGroup
	)
	for w := range concurrentWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				// Each writer serves an overlapping window of the pool,
				// which moves each round: keys join, leave and return.
				var ks []toolname.Key
				for i, k := range pool {
					if (i+w+r)%3 != 0 {
						ks = append(ks, k)
					}
				}
				n, _, err := toolname.Update(context.Background(), stores[w], toolname.Portable, ks)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("writer %d round %d: %w", w, r, err))
				} else {
					for k, name := range n.All() {
						all = append(all, seen{k, name})
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	byKey := map[toolname.Key]string{}
	byName := map[string]toolname.Key{}
	for _, s := range all {
		if prev, ok := byKey[s.key]; ok && prev != s.name {
			t.Errorf("%v had two names: %q and %q", s.key, prev, s.name)
		}
		byKey[s.key] = s.name
		if prev, ok := byName[s.name]; ok && prev != s.key {
			t.Errorf("%q was held by %v and %v", s.name, prev, s.key)
		}
		byName[s.name] = s.key
	}
	// The stored chain knows every name served: each key gets it again.
	final, _ := mustUpdate(t, stores[0], pool)
	for k, name := range byKey {
		if got, _ := final.Name(k); got != name {
			t.Errorf("%v: the chain gives %q, it was served as %q", k, got, name)
		}
	}
}

// longHistory is the number of retired names of the long chain.
const longHistory = 100_000

var (
	longOnce  sync.Once
	longTable *toolname.Table
	longErr   error
)

// longChainTable returns a table with longHistory retired names (the tools
// "t000000" to "t099999" of 1,000 servers that left) and ten live keys,
// built once per test binary.
func longChainTable() (*toolname.Table, error) {
	longOnce.Do(func() {
		gone := make([]toolname.Key, 0, longHistory)
		for i := range longHistory {
			gone = append(gone, toolname.Key{Server: fmt.Sprintf("gone-%03d", i%1000), Tool: fmt.Sprintf("t%06d", i)})
		}
		first, err := toolname.Assign(toolname.Portable, gone)
		if err != nil {
			longErr = err
			return
		}
		live := make([]toolname.Key, 10)
		for i := range live {
			live[i] = toolname.Key{Server: "live", Tool: fmt.Sprintf("tool%d", i)}
		}
		longTable, longErr = toolname.Assign(toolname.Portable, live, toolname.WithPrevious(first))
	})
	return longTable, longErr
}

func (s *suite) longChain(t *testing.T) {
	table, err := longChainTable()
	if err != nil {
		t.Fatal(err)
	}
	a := s.open(t, "c")
	ctx := context.Background()
	if _, err := toolname.Seed(ctx, a, table); err != nil {
		t.Fatalf("Seed of a chain of %d retired names: %v", longHistory, err)
	}
	live := make([]toolname.Key, 0, 11)
	for k := range table.All() {
		live = append(live, k)
	}
	// One writer: a key joins with a retired name as its tool, then
	// another; every retired name stays refused.
	n, rev1 := mustUpdate(t, a, append(live, toolname.Key{Server: "new", Tool: "t000123"}))
	if name, _ := n.Name(toolname.Key{Server: "new", Tool: "t000123"}); name != "new__t000123" {
		t.Errorf("new::t000123 is %q, want new__t000123 (t000123 is retired)", name)
	}
	n, rev2 := mustUpdate(t, a, append(live, toolname.Key{Server: "new", Tool: "t099999"}))
	if rev2 == rev1 {
		t.Error("the second new name was not stored")
	}
	if name, _ := n.Name(toolname.Key{Server: "new", Tool: "t099999"}); name != "new__t099999" {
		t.Errorf("new::t099999 is %q, want new__t099999", name)
	}
	b := s.open(t, "c")
	loaded, rev := mustLoad(t, b)
	if rev != rev2 {
		t.Errorf("Load: revision %q, want %q", rev, rev2)
	}
	if _, gen := loaded.Chain(); gen != 4 {
		t.Errorf("Load: generation %d, want 4 (2 seeded, and one per Update)", gen)
	}
	// A retired name comes back only to its key.
	back, _ := mustUpdate(t, b, keys("gone-123", "t000123"))
	if name, _ := back.Name(toolname.Key{Server: "gone-123", Tool: "t000123"}); name != "t000123" {
		t.Errorf("gone-123::t000123 came back as %q, want t000123", name)
	}
}

func (s *suite) optionsMismatch(t *testing.T) {
	a := s.open(t, "c")
	ctx := context.Background()
	mustUpdate(t, a, keys("a", "x"), toolname.WithReserved("help"))
	for _, tt := range []struct {
		name    string
		profile toolname.Profile
		opts    []toolname.Option
	}{
		{"another profile", toolname.OpenAI, []toolname.Option{toolname.WithReserved("help")}},
		{"another MaxLen", toolname.Profile{MaxLen: 40}, []toolname.Option{toolname.WithReserved("help")}},
		{"qualify-all", toolname.Portable, []toolname.Option{toolname.WithReserved("help"), toolname.WithQualifyAll()}},
		{"other reserved names", toolname.Portable, nil},
	} {
		_, _, err := toolname.Update(ctx, a, tt.profile, keys("a", "y"), tt.opts...)
		wantErr(t, "Update with "+tt.name, err, toolname.ErrChainMismatch)
	}
	n, _ := mustLoad(t, a)
	if _, gen := n.Chain(); gen != 1 {
		t.Errorf("after refused Updates: generation %d, want 1", gen)
	}
}

func (s *suite) seedOnlyEmpty(t *testing.T) {
	ctx := context.Background()
	src := s.open(t, "src")
	mustUpdate(t, src, keys("a", "x", "y"))
	table, _ := mustUpdate(t, src, keys("b", "x"))

	dst := s.open(t, "dst")
	rev, err := toolname.Seed(ctx, dst, table)
	if err != nil || rev == "" {
		t.Fatalf("Seed of an empty chain: %q, %v", rev, err)
	}
	loaded, got := mustLoad(t, s.open(t, "dst"))
	if got != rev {
		t.Errorf("Load after Seed: revision %q, want %q", got, rev)
	}
	sameTable(t, "Load after Seed", table, loaded)
	_, err = toolname.Seed(ctx, dst, table)
	wantErr(t, "Seed of a chain that holds a table", err, toolname.ErrChainNotEmpty)
	_, err = toolname.Seed(ctx, src, table)
	wantErr(t, "Seed of the chain the table came from", err, toolname.ErrChainNotEmpty)
	// The seeded chain continues as the source would.
	n, _ := mustUpdate(t, dst, keys("c", "x"))
	if name, _ := n.Name(toolname.Key{Server: "c", Tool: "x"}); name != "c__x" {
		t.Errorf("c::x on the seeded chain is %q, want c__x", name)
	}
	if _, gen := n.Chain(); gen != 3 {
		t.Errorf("the seeded chain's next table is generation %d, want 3", gen)
	}
}

func (s *suite) cancelledContext(t *testing.T) {
	a := s.open(t, "c")
	table, rev := mustUpdate(t, a, keys("a", "x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	next, err := toolname.Assign(toolname.Portable, keys("b", "x"), toolname.WithPrevious(table))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = a.Load(ctx)
	wantErr(t, "Load with a cancelled context", err, context.Canceled)
	_, err = a.Swap(ctx, rev, next)
	wantErr(t, "Swap with a cancelled context", err, context.Canceled)
	_, _, err = toolname.Update(ctx, a, toolname.Portable, keys("c", "x"))
	wantErr(t, "Update with a cancelled context", err, context.Canceled)
	_, err = toolname.Seed(ctx, s.open(t, "empty"), table)
	wantErr(t, "Seed with a cancelled context", err, context.Canceled)

	if _, got := mustLoad(t, a); got != rev {
		t.Errorf("after cancelled calls: revision %q, want %q (nothing stored)", got, rev)
	}
	if n, _ := mustLoad(t, s.open(t, "empty")); n != nil {
		t.Error("a cancelled Seed stored a table")
	}
}

// watchWait bounds the wait for a notification: a failure, not a
// measurement.
const watchWait = 30 * time.Second

func (s *suite) watcher(t *testing.T) {
	a, b := s.open(t, "c"), s.open(t, "c")
	w, ok := a.(toolname.Watcher)
	if !ok {
		t.Skip("storetest: the store does not implement toolname.Watcher")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Watch(ctx)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	_, rev := mustUpdate(t, b, keys("a", "x"))
	timeout := time.After(watchWait)
	for got := toolname.Revision(""); got != rev; {
		select {
		case r, ok := <-ch:
			if !ok {
				t.Fatal("the watch channel closed before the swap was told")
			}
			got = r
		case <-timeout:
			t.Fatalf("no notification of revision %q within %v", rev, watchWait)
		}
	}
	cancel()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-time.After(watchWait):
			t.Fatalf("the watch channel is still open %v after its context ended", watchWait)
		}
	}
}

func (s *suite) damagedValues(t *testing.T) {
	good, _ := mustUpdate(t, s.open(t, "source"), keys("a", "x"))
	data, err := json.Marshal(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		raw  []byte
	}{
		{"garbage", []byte("\x00\x01not json")},
		{"truncated", data[:len(data)/2]},
		{"empty", []byte{}},
		{"null", []byte("null")},
		{"another program's JSON", []byte(`{"users":[1,2,3]}`)},
		{"unknown version", []byte(strings.Replace(string(data), `"version":2`, `"version":9`, 1))},
		{"text after the table", append(append([]byte{}, data...), "{}"...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chain := s.chain(chainName(tt.name))
			s.h.Corrupt(t, chain, tt.raw)
			st := s.h.Open(t, chain)
			ctx := context.Background()
			_, _, err := st.Load(ctx)
			wantErr(t, "Load of a damaged value", err, toolname.ErrInvalidTable)
			_, _, err = toolname.Update(ctx, st, toolname.Portable, keys("b", "y"))
			wantErr(t, "Update over a damaged value", err, toolname.ErrInvalidTable)
			_, err = toolname.Seed(ctx, st, good)
			wantErr(t, "Seed over a damaged value", err, toolname.ErrChainNotEmpty)
			_, _, err = st.Load(ctx)
			wantErr(t, "Load of a damaged value, again", err, toolname.ErrInvalidTable)
		})
	}
	// A value damaged under a live store value is refused the same way.
	chain := s.chain("live")
	st := s.h.Open(t, chain)
	mustUpdate(t, st, keys("a", "x"))
	s.h.Corrupt(t, chain, data[:len(data)-1])
	_, _, err = st.Load(context.Background())
	wantErr(t, "Load of a value damaged under a live store value", err, toolname.ErrInvalidTable)
}

func (s *suite) resetIsRollback(t *testing.T) {
	a := s.open(t, "c")
	ctx := context.Background()
	older, _ := mustUpdate(t, a, keys("a", "x"))
	backup, _ := mustUpdate(t, a, keys("b", "x"))
	s.h.Reset(t, s.chain("c"))
	_, _, err := a.Load(ctx)
	wantErr(t, "Load of a chain emptied under a live store value", err, toolname.ErrRollback)
	_, _, err = toolname.Update(ctx, a, toolname.Portable, keys("c", "x"))
	wantErr(t, "Update of a chain emptied under a live store value", err, toolname.ErrRollback)

	// Seeding it from the backup, on purpose, restores it.
	seeded, err := toolname.Seed(ctx, a, backup)
	if err != nil {
		t.Fatalf("Seed of the emptied chain from its backup: %v", err)
	}
	if seeded == "" {
		t.Error("Seed returned the empty revision")
	}
	n, _ := mustLoad(t, a)
	sameTable(t, "Load after the chain was seeded again", backup, n)

	// Even an older table, seeded on purpose through the same value, is
	// what the chain holds from then on.
	s.h.Reset(t, s.chain("c"))
	if _, err := toolname.Seed(ctx, a, older); err != nil {
		t.Fatalf("Seed of the emptied chain from an older table: %v", err)
	}
	n, _ = mustLoad(t, a)
	sameTable(t, "Load after the chain was seeded with an older table", older, n)
	next, _ := mustUpdate(t, a, keys("c", "x"))
	if _, gen := next.Chain(); gen != 2 {
		t.Errorf("the table after the seeded generation 1 is generation %d, want 2", gen)
	}
}

func (s *suite) olderIsRollback(t *testing.T) {
	a := s.open(t, "c")
	ctx := context.Background()
	old, _ := mustUpdate(t, a, keys("a", "x"))
	mustUpdate(t, a, keys("b", "x"))
	oldData, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	other, err := toolname.Assign(toolname.Portable, keys("a", "x"))
	if err != nil {
		t.Fatal(err)
	}
	otherData, err := json.Marshal(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		raw  []byte
	}{
		{"an older table of the chain", oldData},
		{"a table of another chain", otherData},
	} {
		s.h.Corrupt(t, s.chain("c"), tt.raw)
		_, _, err := a.Load(ctx)
		wantErr(t, "Load of "+tt.name, err, toolname.ErrRollback)
		_, _, err = toolname.Update(ctx, a, toolname.Portable, keys("c", "x"))
		wantErr(t, "Update over "+tt.name, err, toolname.ErrRollback)
	}
}

// wantFork fails the test unless err is the refusal of a table that does
// not continue the one held, naming name first.
func wantFork(t *testing.T, what string, err error, name string) {
	t.Helper()
	var e *toolname.Error
	switch {
	case !errors.Is(err, toolname.ErrRollback):
		t.Errorf("%s: error %v, want one matching %v", what, err, toolname.ErrRollback)
	case !errors.As(err, &e):
		t.Errorf("%s: error %v is no *toolname.Error", what, err)
	case e.Field != "name" || e.Input != name:
		t.Errorf("%s: refused with %s=%q, want name=%q", what, e.Field, e.Input, name)
	}
}

// marshal returns n's JSON, as a store holds it.
func marshal(t *testing.T, n *toolname.Table) []byte {
	t.Helper()
	data, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// forkIsRollback: generation 1 names s1::list; generation 2 gives
// delete_everything to s2's tool; a backup of generation 1 is restored,
// and a replica started afterwards continues from it, giving
// delete_everything to s3's tool at "generation 2". A value that held the
// real generation 2 refuses that table, however it comes to read it.
func (s *suite) forkIsRollback(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	list := keys("s1", "list")
	s2, s3 := toolname.Key{Server: "s2", Tool: "delete_everything"}, toolname.Key{Server: "s3", Tool: "delete_everything"}
	a := s.open(t, "c")
	gen1, _ := mustUpdate(t, a, list)
	gen2, rev2 := mustUpdate(t, a, append(list, s2))
	if name, _ := gen2.Name(s2); name != "delete_everything" {
		t.Fatalf("s2::delete_everything is %q, want delete_everything", name)
	}
	var watch <-chan toolname.Revision
	if w, ok := a.(toolname.Watcher); ok {
		var err error
		if watch, err = w.Watch(ctx); err != nil {
			t.Fatalf("Watch: %v", err)
		}
	}

	s.h.Corrupt(t, s.chain("c"), marshal(t, gen1)) // a backup of generation 1, restored
	_, _, err := a.Load(ctx)
	wantErr(t, "Load of the restored generation 1", err, toolname.ErrRollback)

	var fork *toolname.Table
	var forkRev toolname.Revision
	b := s.open(t, "c")
	if !same(a, b) {
		// A replica started after the restore continues from it.
		fork, forkRev = mustUpdate(t, b, append(list, s3))
	} else {
		// One value per chain: the fork is what such a replica elsewhere
		// would have written.
		if fork, err = toolname.Assign(toolname.Portable, append(list, s3), toolname.WithPrevious(gen1)); err != nil {
			t.Fatal(err)
		}
		s.h.Corrupt(t, s.chain("c"), marshal(t, fork))
	}
	id1, _ := gen1.Chain()
	if id, gen := fork.Chain(); id != id1 || gen != 2 {
		t.Fatalf("the fork is chain %s generation %d, want %s generation 2", id, gen, id1)
	}
	if name, _ := fork.Name(s3); name != "delete_everything" {
		t.Fatalf("s3::delete_everything in the fork is %q, want delete_everything", name)
	}

	if watch != nil && forkRev != "" {
		// The watcher tells the fork's revision; the reload refuses it.
		timeout := time.After(watchWait)
		for got := rev2; got != forkRev; {
			select {
			case got = <-watch:
			case <-timeout:
				t.Fatalf("no notification of the fork's revision %q within %v", forkRev, watchWait)
			}
		}
	}
	_, _, err = a.Load(ctx)
	wantFork(t, "Load of the fork", err, "delete_everything")
	_, _, err = toolname.Update(ctx, a, toolname.Portable, append(list, s2))
	wantFork(t, "Update over the fork", err, "delete_everything")
	_, _, err = a.Load(ctx)
	wantFork(t, "Load of the fork, again", err, "delete_everything")
	if same(a, b) {
		return
	}
	if _, rev := mustLoad(t, b); rev != forkRev {
		t.Errorf("after the refused Update: revision %q, want the fork's %q (nothing stored)", rev, forkRev)
	}
	// The fork goes on: its next generation is refused too.
	mustUpdate(t, b, append(list, s3, toolname.Key{Server: "s3", Tool: "list"}))
	_, _, err = a.Load(ctx)
	wantFork(t, "Load of the fork's generation 3", err, "delete_everything")
}

// same reports whether a and b are one store value, as the harness of a
// store that admits one value per chain returns; a value of a type that
// cannot be compared is another.
func same(a, b toolname.Store) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// withoutEntry returns text, the JSON of a table, without the entry of
// "names" or "retired" that starts with entry.
func withoutEntry(t *testing.T, text, entry string) string {
	t.Helper()
	i := strings.Index(text, entry)
	if i < 0 {
		t.Fatalf("storetest: no entry %s in %.300s", entry, text)
	}
	j := i + strings.IndexByte(text[i:], '}') + 1
	switch {
	case text[j] == ',':
		j++
	case text[i-1] == ',':
		i--
	}
	return text[:i] + text[j:]
}

// editedIsRollback: a well-formed table written into the store by hand, of
// the chain and generation of the one a value holds, that sends a name to
// another key or drops one (a retired name dropped could be given to
// another key) is refused; the table held, written back, is not.
func (s *suite) editedIsRollback(t *testing.T) {
	ctx := context.Background()
	a := s.open(t, "c")
	mustUpdate(t, a, append(keys("scripted", "get-sum"), keys("other", "get-sum", "list")...))
	live := keys("other", "get-sum", "list", "new")
	held, _ := mustUpdate(t, a, live) // scripted::get-sum left
	heldData := marshal(t, held)
	text := string(heldData)
	for _, tt := range []struct {
		name   string
		edited string
		first  string // the name refused
	}{
		{"a name sent to another server's tool",
			strings.Replace(text, `{"server":"other","tool":"list","name":"list"}`, `{"server":"p","tool":"list","name":"list"}`, 1), "list"},
		{"a retired name dropped",
			withoutEntry(t, text, `{"server":"scripted","tool":"get-sum","name":"scripted__get-sum"`), "scripted__get-sum"},
		{"a live name dropped",
			withoutEntry(t, text, `{"server":"other","tool":"new","name":"new"`), "new"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edited == text {
				t.Fatalf("storetest: the edit changed nothing in %.300s", text)
			}
			if err := new(toolname.Table).UnmarshalJSON([]byte(tt.edited)); err != nil {
				t.Fatalf("storetest: the edited table is not well formed: %v", err)
			}
			s.h.Corrupt(t, s.chain("c"), []byte(tt.edited))
			_, _, err := a.Load(ctx)
			wantFork(t, "Load of the edited table", err, tt.first)
			_, _, err = toolname.Update(ctx, a, toolname.Portable, live)
			wantFork(t, "Update over the edited table", err, tt.first)

			// The table held, written back: it continues itself.
			s.h.Corrupt(t, s.chain("c"), heldData)
			n, _ := mustLoad(t, a)
			sameTable(t, "Load of the table held, written back", held, n)
		})
	}
}

// holdRefuses: a store value that starts from a table known elsewhere
// (a restarted replica's backup of generation 2, held by
// [toolname.Holder] before its first Load) refuses a chain found empty,
// older, of another chain, or forked from generation 1 (giving
// delete_everything to s3's tool, where the backup gives it to s2's), and
// holds none of them: once another value, or another process, writes the
// backup's table back, the value accepts it and continues the chain.
func (s *suite) holdRefuses(t *testing.T) {
	ctx := context.Background()
	list := keys("s1", "list")
	s2, s3 := toolname.Key{Server: "s2", Tool: "delete_everything"}, toolname.Key{Server: "s3", Tool: "delete_everything"}
	assign := func(prev *toolname.Table, ks ...toolname.Key) *toolname.Table {
		t.Helper()
		n, err := toolname.Assign(toolname.Portable, ks, toolname.WithPrevious(prev))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	gen1 := assign(nil, list...)
	backup := assign(gen1, append(list, s2)...)
	fork := assign(gen1, append(list, s3)...)
	other := assign(nil, list...)

	a := s.open(t, "c")
	h, ok := a.(toolname.Holder)
	if !ok {
		t.Skip("storetest: the store does not implement toolname.Holder")
	}
	if err := h.Hold(backup); err != nil {
		t.Fatalf("Hold before the first Load: %v", err)
	}
	_, _, err := a.Load(ctx)
	wantErr(t, "Load of an empty chain", err, toolname.ErrRollback)
	_, _, err = toolname.Update(ctx, a, toolname.Portable, append(list, s3))
	wantErr(t, "Update of an empty chain", err, toolname.ErrRollback)
	b := s.open(t, "c")
	if !same(a, b) {
		if n, _ := mustLoad(t, b); n != nil {
			t.Fatal("a refused Update stored a table")
		}
	}
	for _, tt := range []struct {
		name  string
		table *toolname.Table
		fork  bool
	}{
		{"an older table of the chain", gen1, false},
		{"a table of another chain", other, false},
		{"a fork from an older table", fork, true},
	} {
		s.h.Corrupt(t, s.chain("c"), marshal(t, tt.table))
		_, _, err := a.Load(ctx)
		_, _, uerr := toolname.Update(ctx, a, toolname.Portable, append(list, s3))
		if tt.fork {
			wantFork(t, "Load of "+tt.name, err, "delete_everything")
			wantFork(t, "Update over "+tt.name, uerr, "delete_everything")
		} else {
			wantErr(t, "Load of "+tt.name, err, toolname.ErrRollback)
			wantErr(t, "Update over "+tt.name, uerr, toolname.ErrRollback)
		}
	}

	// The chain put back on purpose, not through a: emptied and seeded
	// from the backup by another replica, or written back by another
	// process where the store admits one value per chain.
	s.h.Reset(t, s.chain("c"))
	if same(a, b) {
		s.h.Corrupt(t, s.chain("c"), marshal(t, backup))
	} else if _, err := toolname.Seed(ctx, b, backup); err != nil {
		t.Fatalf("Seed of the backup's table through another value: %v", err)
	}
	n, _ := mustLoad(t, a)
	sameTable(t, "Load of the backup's table, written back", backup, n)
	next, _ := mustUpdate(t, a, append(list, s2, toolname.Key{Server: "s2", Tool: "x"}))
	if _, gen := next.Chain(); gen != 3 {
		t.Errorf("the table after the backup's generation 2 is generation %d, want 3", gen)
	}

	// Held again on a value that holds a later table: the later is kept;
	// a fork is refused.
	if err := h.Hold(backup); err != nil {
		t.Errorf("Hold of an older table that the one held continues: %v", err)
	}
	wantFork(t, "Hold of a fork", h.Hold(fork), "delete_everything")
	n, _ = mustLoad(t, a)
	sameTable(t, "Load after Hold", next, n)
}
