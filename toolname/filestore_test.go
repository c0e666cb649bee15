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
	require.ErrorIs(t, err, toolname.ErrInvalidNames)

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
