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

// loadState reads the table saved at path. A missing file starts a new
// chain; a file that cannot be read or is not a table is an error, so that
// a damaged file never silently renames every tool.
func loadState(path string) (*toolname.Names, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the state file: %w", err)
	}
	n := new(toolname.Names)
	if err := n.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return n, nil
}

// saveState writes n to path atomically: to a temporary file in the same
// directory, then renamed over path, so that a crash leaves the old table
// or the new one, never half of one.
func saveState(path string, n *toolname.Names) error {
	if path == "" {
		return nil
	}
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("saving the state file: %w", err)
	}
	_, err = f.Write(append(data, '\n'))
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
		return fmt.Errorf("saving the state file: %w", err)
	}
	return nil
}
