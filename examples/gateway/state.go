package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpid/mcpid/toolname"
)

// state is what the gateway keeps of its state file: the table to continue,
// and the tools of each server that the chain has ever named, which the cap
// on distinct tools counts.
type state struct {
	names *toolname.Names
	ever  map[string]map[string]bool // server -> tool -> named once
}

// loadState reads the table saved at path. A missing file starts a new
// chain; a file that cannot be read or is not a table is an error, so that
// a damaged file never silently renames every tool.
func loadState(path string) (state, error) {
	st := state{ever: map[string]map[string]bool{}}
	if path == "" {
		return st, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("reading the state file: %w", err)
	}
	n := new(toolname.Names)
	if err := n.UnmarshalJSON(data); err != nil {
		return st, fmt.Errorf("state file %s: %w", path, err)
	}
	// The table's JSON form lists every key the chain has named, live
	// or retired ([toolname.Names.MarshalJSON]); UnmarshalJSON has checked it.
	var keys struct {
		Names, Retired []toolname.Key
	}
	if err := json.Unmarshal(data, &keys); err != nil {
		return st, fmt.Errorf("state file %s: %w", path, err)
	}
	for _, k := range append(keys.Names, keys.Retired...) {
		if st.ever[k.Server] == nil {
			st.ever[k.Server] = map[string]bool{}
		}
		st.ever[k.Server][k.Tool] = true
	}
	st.names = n
	return st, nil
}

// writeFileAtomic writes data to path: to a temporary file in the same
// directory, synced, then renamed over path, so that a crash leaves the old
// table or the new one, never half of one.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// errStateLocked is the error of a gateway whose state file another
// gateway holds.
var errStateLocked = errors.New("another gateway is using this state file")

// lockState takes the advisory lock that makes a gateway the only one to
// use the state file at path: an exclusive lock on path+".lock", which is
// created when missing. Where the lock file cannot be created (a read-only
// directory), the state file itself is locked: nothing can be saved there
// anyway until the directory becomes writable. The returned function
// releases the lock.
func lockState(path string) (release func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		f, err = os.Open(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("locking the state file: cannot create %s.lock: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("locking the state file: %w", err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil
}
