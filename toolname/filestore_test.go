package toolname_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/storetest"
)

// TestFileStoreConformance runs storetest on the file store. The lock
// admits one FileStore per file, so every Open of a chain returns the
// same value, as storetest.Harness says.
func TestFileStoreConformance(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	open := map[string]*toolname.FileStore{}
	path := func(chain string) string { return filepath.Join(dir, chain+".json") }
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, chain string) toolname.Store {
			mu.Lock()
			defer mu.Unlock()
			if s, ok := open[chain]; ok {
				return s
			}
			s, err := toolname.NewFileStore(path(chain))
			require.NoError(t, err)
			open[chain] = s
			t.Cleanup(func() {
				mu.Lock()
				defer mu.Unlock()
				delete(open, chain)
				assert.NoError(t, s.Close())
			})
			return s
		},
		Corrupt: func(t *testing.T, chain string, raw []byte) {
			require.NoError(t, os.WriteFile(path(chain), raw, 0o600))
		},
		Reset: func(t *testing.T, chain string) {
			require.NoError(t, os.Remove(path(chain)))
		},
	})
}

func TestFileStoreLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "names.json")
	s, err := toolname.NewFileStore(path)
	require.NoError(t, err)

	_, err = toolname.NewFileStore(path)
	require.ErrorIs(t, err, toolname.ErrStoreLocked, "a second FileStore in this process")
	var e *toolname.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "path", e.Field)
	assert.Equal(t, path, e.Input)

	// Another process is refused too.
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileStoreLockHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCPID_FILESTORE_LOCK_PATH="+path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "helper: "+string(toolname.CodeStoreLocked), string(out))

	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Close(), os.ErrClosed)
	_, _, err = s.Load(context.Background())
	require.ErrorIs(t, err, os.ErrClosed)
	_, err = s.Swap(context.Background(), "", nil)
	require.ErrorIs(t, err, toolname.ErrInvalidTable)

	again, err := toolname.NewFileStore(path)
	require.NoError(t, err, "the lock is released by Close")
	require.NoError(t, again.Close())
	_, err = toolname.NewFileStore(filepath.Join(t.TempDir(), "no-such-dir", "names.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestFileStoreLockHelper is the other process of TestFileStoreLock: it
// opens the file store of its parent's test and prints the code it got.
func TestFileStoreLockHelper(t *testing.T) {
	path := os.Getenv("MCPID_FILESTORE_LOCK_PATH")
	if path == "" {
		t.Skip("run by TestFileStoreLock")
	}
	_, err := toolname.NewFileStore(path)
	var e *toolname.Error
	if errors.As(err, &e) {
		fmt.Println("helper:", e.Code)
		return
	}
	fmt.Println("helper: got", err)
}

// TestFileStoreWriteFails: a swap that cannot write stores nothing, says
// why, and leaves the table and the directory as they were.
func TestFileStoreWriteFails(t *testing.T) {
	if !runUnprivileged(t) {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "names.json")
	s, err := toolname.NewFileStore(path)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	first, rev, err := toolname.Update(ctx, s, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o500))
	defer os.Chmod(dir, 0o700)

	_, _, err = toolname.Update(ctx, s, toolname.Portable, []toolname.Key{{Server: "b", Tool: "x"}})
	require.ErrorIs(t, err, os.ErrPermission)
	n, got, err := s.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev, got)
	name, _ := n.Name(toolname.Key{Server: "a", Tool: "x"})
	want, _ := first.Name(toolname.Key{Server: "a", Tool: "x"})
	assert.Equal(t, want, name)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	assert.ElementsMatch(t, []string{"names.json", "names.json.lock"}, files)
}

// TestFileStoreReadOnlyDir: a chain in a directory where the lock file
// cannot be created still opens and loads, so that a gateway serves its
// names; it writes only once it holds the lock, which it takes before its
// first write, and then a second store is refused.
func TestFileStoreReadOnlyDir(t *testing.T) {
	if !runUnprivileged(t) {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "names.json")
	ctx := context.Background()
	first, err := toolname.NewFileStore(path)
	require.NoError(t, err)
	stored, _, err := toolname.Update(ctx, first, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.NoError(t, err)
	require.NoError(t, first.Close())
	require.NoError(t, os.Remove(path+".lock"))
	require.NoError(t, os.Chmod(dir, 0o500))
	defer os.Chmod(dir, 0o700)

	s, err := toolname.NewFileStore(path)
	require.NoError(t, err, "a read-only directory opens")
	defer s.Close()
	n, _, err := s.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, stored.Len(), n.Len())
	_, _, err = toolname.Update(ctx, s, toolname.Portable, []toolname.Key{{Server: "b", Tool: "y"}})
	require.ErrorIs(t, err, os.ErrPermission, "no write without the lock")

	require.NoError(t, os.Chmod(dir, 0o700))
	next, _, err := toolname.Update(ctx, s, toolname.Portable, []toolname.Key{{Server: "b", Tool: "y"}})
	require.NoError(t, err, "the lock is taken before the write")
	_, ok := next.Name(toolname.Key{Server: "b", Tool: "y"})
	assert.True(t, ok)
	_, err = toolname.NewFileStore(path)
	require.ErrorIs(t, err, toolname.ErrStoreLocked)
}
