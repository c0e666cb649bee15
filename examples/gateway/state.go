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
// directory, synced, then renamed over path, and the directory synced, so
// that a crash leaves the old table or the new one, never half of one, and
// a table written stays written.
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
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable: until the directory is synced, a
// power loss may undo the rename, and the names just served with it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// errStateLocked is the error of a gateway whose state file another
// gateway holds.
var errStateLocked = errors.New("another gateway is using this state file")

// stateLock is the advisory lock that makes a gateway the only one to save
// the state file at path: an exclusive flock on path+".lock", a file that
// no save replaces.
//
// A lock file that cannot be created (a read-only directory) does not stop
// the start: the gateway serves the loaded table, and takes the lock before
// it saves, which it does only once it holds it. So two gateways never
// both save one table, whatever order they start and fail in.
type stateLock struct {
	path string
	f    *os.File // nil while not held
}

// lockState takes the lock for the state file at path. A lock that another
// gateway holds is errStateLocked, and a platform without flock is
// errors.ErrUnsupported; a lock file that cannot be created leaves the
// lock not held, with the reason as notHeld.
func lockState(path string) (l *stateLock, notHeld, err error) {
	l = &stateLock{path: path + ".lock"}
	err = l.take()
	if errors.Is(err, errStateLocked) || errors.Is(err, errors.ErrUnsupported) {
		return nil, nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return l, err, nil
}

// take takes the lock, unless it is held already.
func (l *stateLock) take() error {
	if l.f != nil {
		return nil
	}
	f, err := os.OpenFile(l.path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		return err
	}
	l.f = f
	return nil
}

// release releases the lock, if it is held.
func (l *stateLock) release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
