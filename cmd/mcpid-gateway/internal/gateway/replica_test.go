package gateway

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/pgstore"
	"github.com/mcpid/mcpid/toolname/redisstore"
)

// TestReplicas: three gateway processes share one chain in a real Redis,
// or a real PostgreSQL, each over downstream processes of its own, through
// staggered starts, one tool added to two servers in opposite orders on
// different replicas, a replica killed (SIGKILL) while it names a tool and
// started again, and the store stopped and started again. Each name a
// replica lists is called on every replica as soon as it is seen, and
// again at the end: no tool has two names across replicas, no call reaches
// another tool than the one its name was listed for, and no name is ever
// given to two tools.
func TestReplicas(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *dbserver.Server
		open  func(t testing.TB, url, chain string) toolname.Store
	}{
		{"redis", dbserver.StartRedis, openRedis},
		{"postgres", dbserver.StartPostgres, openPostgres},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.start(t)
			rs := newReplicaSet(t, srv.URL)
			rs.run(srv)
			stored, _, err := tc.open(t, srv.URL, rs.chain).Load(t.Context())
			require.NoError(t, err)
			rs.checkStored(stored)
		})
	}
}

func openRedis(t testing.TB, url, chain string) toolname.Store {
	opts, err := redis.ParseURL(url)
	require.NoError(t, err)
	client := redis.NewClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	return redisstore.New(client, chain)
}

func openPostgres(t testing.TB, url, chain string) toolname.Store {
	pool, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s, err := pgstore.New(t.Context(), pool, chain)
	require.NoError(t, err)
	return s
}

// replicaServers are the downstreams of every replica: the test binary as
// a server, its tools in a file of the replica's own that the test edits.
var replicaServers = []string{"s1", "s2", "s3"}

// replicaSet is three gateway processes on one store and chain.
type replicaSet struct {
	t        *testing.T
	exe      string
	dir      string
	state    string
	chain    string
	replicas [3]*replica

	mu        sync.Mutex
	keyOf     map[string]toolname.Key          // every name a replica listed, with the tool a call by it reached there
	nameOf    map[toolname.Key]map[string]bool // every name each tool was listed under, on any replica
	misroutes []string                         // calls that reached another tool than their name's
	called    map[int]map[string]bool          // the names already called across the replicas, by the replica that listed them
	listed    map[int]map[string]toolname.Key  // the last listing of each replica
}

// replica is one gateway process and its client.
type replica struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stderr *syncbuf.Buffer
}

func newReplicaSet(t *testing.T, state string) *replicaSet {
	exe, err := os.Executable()
	require.NoError(t, err)
	rs := &replicaSet{
		t: t, exe: exe, dir: t.TempDir(), state: state, chain: "replicas",
		keyOf:  map[string]toolname.Key{},
		nameOf: map[toolname.Key]map[string]bool{},
		called: map[int]map[string]bool{},
		listed: map[int]map[string]toolname.Key{},
	}
	t.Cleanup(func() {
		for i, r := range rs.replicas {
			if r != nil {
				_ = r.cs.Close()
				if t.Failed() {
					t.Logf("replica %d's log:\n%s", i, r.stderr.String())
				}
			}
		}
	})
	return rs
}

// run plays the scenario; srv is the store's server.
func (rs *replicaSet) run(srv *dbserver.Server) {
	t := rs.t
	for i := range rs.replicas {
		for _, s := range replicaServers {
			rs.setTools(i, s, map[string][]string{"s1": {"fetch", "search"}, "s2": {"list", "search"}, "s3": {"echo"}}[s]...)
		}
	}
	// Staggered starts, each replica with another slow server, and the
	// second without s1's search at first: alone, it would call s2's
	// search "search".
	rs.setTools(1, "s1", "fetch")
	rs.start(0, "s1")
	time.Sleep(100 * time.Millisecond)
	rs.start(1, "s2")
	time.Sleep(100 * time.Millisecond)
	rs.start(2, "")
	rs.settle(5, 4, 5)
	rs.setTools(1, "s1", "fetch", "search")
	rs.settle(5, 5, 5)

	// One tool added to two servers in opposite orders.
	rs.setTools(0, "s1", "fetch", "report", "search")
	rs.setTools(1, "s2", "list", "report", "search")
	rs.setTools(2, "s1", "fetch", "report", "search")
	rs.setTools(2, "s2", "list", "report", "search")
	time.Sleep(300 * time.Millisecond)
	rs.setTools(0, "s2", "list", "report", "search")
	rs.setTools(1, "s1", "fetch", "report", "search")
	rs.settle(7, 7, 7)

	// A replica killed while it names a new tool, and started again.
	for i := range rs.replicas {
		rs.setTools(i, "s3", "echo", "late")
	}
	time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
	rs.kill(2)
	rs.start(2, "")
	rs.settle(8, 8, 8)

	// The store stopped: the stored names keep routing, a new tool waits
	// unlisted; once the store is back, it is named.
	srv.Stop()
	rs.setTools(0, "s3", "echo", "late", "offline")
	time.Sleep(time.Second)
	assert.Len(t, rs.listing(0), 8, "a tool named while the store is down is not listed")
	for name, k := range rs.listing(0) {
		got, ok := rs.call(0, name)
		assert.True(t, ok && got == k, "%q routes while the store is down", name)
	}
	srv.Start()
	rs.setTools(1, "s3", "echo", "late", "offline")
	rs.setTools(2, "s3", "echo", "late", "offline")
	rs.settle(9, 9, 9)

	rs.checkAgreement()
}

// toolsFile is the file that lists the tools of server on replica i.
func (rs *replicaSet) toolsFile(i int, server string) string {
	return filepath.Join(rs.dir, fmt.Sprintf("r%d-%s.txt", i, server))
}

// setTools sets the tools of server on replica i, in one rename.
func (rs *replicaSet) setTools(i int, server string, tools ...string) {
	path := rs.toolsFile(i, server)
	require.NoError(rs.t, os.WriteFile(path+".new", []byte(strings.Join(tools, "\n")), 0o600))
	require.NoError(rs.t, os.Rename(path+".new", path))
}

// start starts replica i, whose server slow answers initialize late.
func (rs *replicaSet) start(i int, slow string) {
	t := rs.t
	args := []string{"-stdio", "-state", rs.state, "-chain", rs.chain,
		"-backup", filepath.Join(rs.dir, fmt.Sprintf("r%d-backup.json", i)), "-timeout", "10s", "-start-timeout", "5s"}
	for _, s := range replicaServers {
		mode := "toolsfile=" + rs.toolsFile(i, s) + ",who=" + s
		if s == slow {
			mode += ",delay=300ms"
		}
		args = append(args, "-server", s+"='"+rs.exe+"'", "-env", s+"="+testServerEnv+"="+mode)
	}
	r := &replica{cmd: exec.Command(rs.exe, args...), stderr: new(syncbuf.Buffer)}
	r.cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
	r.cmd.Stderr = r.stderr
	var err error
	r.cs, err = mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "v0"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: r.cmd}, nil)
	require.NoError(t, err)
	rs.replicas[i] = r
}

// kill kills replica i with SIGKILL.
func (rs *replicaSet) kill(i int) {
	r := rs.replicas[i]
	require.NoError(rs.t, r.cmd.Process.Kill())
	_ = r.cs.Close()
	rs.replicas[i] = nil
}

// listing returns the names replica i lists, each with the tool a call by
// it reaches there. Every name it lists is called at once on the other
// replicas too (see crossCall).
func (rs *replicaSet) listing(i int) map[string]toolname.Key {
	t := rs.t
	names, err := listNames(t.Context(), rs.replicas[i].cs)
	require.NoError(t, err)
	got := map[string]toolname.Key{}
	for _, name := range names {
		k, ok := rs.call(i, name)
		if !ok {
			continue // listed, then gone: a relist in between
		}
		got[name] = k
		rs.record(name, k)
		rs.crossCall(i, name, k)
	}
	rs.mu.Lock()
	rs.listed[i] = got
	rs.mu.Unlock()
	return got
}

// record notes that name was listed for k.
func (rs *replicaSet) record(name string, k toolname.Key) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if prev, ok := rs.keyOf[name]; ok && prev != k {
		rs.t.Errorf("%q was given to %v and to %v", name, prev, k)
	}
	rs.keyOf[name] = k
	if rs.nameOf[k] == nil {
		rs.nameOf[k] = map[string]bool{}
	}
	rs.nameOf[k][name] = true
}

// crossCall calls name, which replica i listed for k, on the other
// replicas, once: each must reach k, or answer unknown tool.
func (rs *replicaSet) crossCall(i int, name string, k toolname.Key) {
	rs.mu.Lock()
	if rs.called[i] == nil {
		rs.called[i] = map[string]bool{}
	}
	done := rs.called[i][name]
	rs.called[i][name] = true
	rs.mu.Unlock()
	if done {
		return
	}
	for j, r := range rs.replicas {
		if j == i || r == nil {
			continue
		}
		if got, ok := rs.call(j, name); ok && got != k {
			rs.mu.Lock()
			rs.misroutes = append(rs.misroutes, fmt.Sprintf("%q listed on replica %d for %v reached %v on replica %d", name, i, k, got, j))
			rs.mu.Unlock()
		}
	}
}

// call calls name on replica i, and returns the tool that answered; it
// reports false for an unknown tool, or a tool error (its server is
// restarting).
func (rs *replicaSet) call(i int, name string) (toolname.Key, bool) {
	res, err := rs.replicas[i].cs.CallTool(rs.t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		require.ErrorContains(rs.t, err, "unknown tool", "calling %q on replica %d", name, i)
		return toolname.Key{}, false
	}
	if res.IsError {
		return toolname.Key{}, false
	}
	server, tool, ok := strings.Cut(resultText(res), " answered ")
	require.True(rs.t, ok, "the answer of %q: %q", name, resultText(res))
	return toolname.Key{Server: server, Tool: tool}, true
}

// settle waits until each replica lists as many names as told.
func (rs *replicaSet) settle(want ...int) {
	for i, n := range want {
		require.Eventually(rs.t, func() bool { return len(rs.listing(i)) == n }, testTimeout, 50*time.Millisecond,
			"replica %d lists %d names", i, n)
	}
}

// checkAgreement checks that every replica lists the same names for the
// same tools, that no tool was ever listed under two names, no name given
// to two tools (record checks that as it goes) and no call misrouted.
func (rs *replicaSet) checkAgreement() {
	t := rs.t
	for i := range rs.replicas {
		for name, k := range rs.listing(i) {
			for j := range rs.replicas {
				got, ok := rs.call(j, name)
				assert.True(t, ok && got == k, "%q listed on replica %d for %v: on replica %d, %v (%v)", name, i, k, j, got, ok)
			}
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i := 1; i < len(rs.replicas); i++ {
		if diff := cmp.Diff(rs.listed[0], rs.listed[i]); diff != "" {
			t.Errorf("replica %d lists other names than replica 0 (-0 +%d):\n%s", i, i, diff)
		}
	}
	var renamed []string
	for k, names := range rs.nameOf {
		if len(names) > 1 {
			renamed = append(renamed, fmt.Sprintf("%v: %v", k, slices.Sorted(maps.Keys(names))))
		}
	}
	assert.Empty(t, renamed, "tools listed under two names")
	assert.Empty(t, rs.misroutes, "calls that reached another tool")
	t.Logf("%d names over %d tools, each called on every replica: 0 renamed, 0 misrouted, 0 reused", len(rs.keyOf), len(rs.nameOf))
}

// checkStored checks that the store's table gives every name the replicas
// list to the tool they route it to.
func (rs *replicaSet) checkStored(stored *toolname.Table) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	require.NotNil(rs.t, stored)
	for name, k := range rs.listed[0] {
		got, ok := stored.Name(k)
		assert.True(rs.t, ok && got == name, "the store names %v %q, the replicas %q", k, got, name)
	}
}
