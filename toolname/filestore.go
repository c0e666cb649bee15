package toolname

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// FileStore is a [Store] that keeps a chain's latest table in one file,
// for a gateway that runs as a single process. A swap replaces the file
// atomically, and a lock on path+".lock" keeps a second FileStore out.
type FileStore struct {
	path   string
	lock   *os.File // nil until taken, and once closed
	closed bool
	guard  *chainguard.Guard[*Table]
	mu     sync.Mutex   // one Load or Swap at a time: each reads or replaces the whole file
	buf    bytes.Buffer // the file as read last, kept for its room
}

// NewFileStore opens the chain kept in the file at path (its directory
// must exist) and takes its lock: [ErrStoreLocked] when another holds it.
// Close releases the lock.
func NewFileStore(path string) (*FileStore, error) {
	s := &FileStore{path: path, guard: chainguard.New(decodeNames)}
	f, err := s.openLock()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case err != nil:
		return s, nil // read-only: Swap takes the lock first
	}
	if err := s.holdLock(f); err != nil {
		return nil, err
	}
	return s, nil
}

// takeLock takes the store's lock unless it holds it already.
func (s *FileStore) takeLock() error {
	if s.lock != nil {
		return nil
	}
	f, err := s.openLock()
	if err != nil {
		return err
	}
	return s.holdLock(f)
}

// openLock opens the lock file, creating it if need be.
func (s *FileStore) openLock() (*os.File, error) {
	f, err := os.OpenFile(s.path+".lock", os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("toolname: file store %s: %w", s.path, err)
	}
	return f, nil
}

// holdLock locks f, the open lock file, and keeps it, or closes it and
// returns why it cannot be locked.
func (s *FileStore) holdLock(f *os.File) error {
	if err := lockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return &Error{Code: CodeStoreLocked, Field: "path", Index: -1, Offset: -1, Input: s.path}
		}
		return fmt.Errorf("toolname: file store %s: %w", s.path, err)
	}
	s.lock = f
	return nil
}

// errLocked is what lockFile returns for a lock held elsewhere.
var errLocked = errors.New("locked")

// decodeNames decodes a stored table.
func decodeNames(raw []byte) (*Table, error) {
	n := new(Table)
	if err := n.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return n, nil
}

// errClosed is the error of a FileStore used after Close.
var errClosed = fmt.Errorf("toolname: file store: %w", os.ErrClosed)

// Load returns the table in the file and its revision: nil and "" when
// there is no file.
func (s *FileStore) Load(ctx context.Context) (*Table, Revision, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", errClosed
	}
	n, rev, err := s.guard.Load(func(string) (string, []byte, error) {
		data, rev, err := s.read()
		return string(rev), data, err
	})
	return n, Revision(rev), err
}

// read returns the file's content and revision: nil and "" when there is
// no file. The content is in the store's buffer, valid until the next
// read; UnmarshalJSON copies what it keeps.
func (s *FileStore) read() ([]byte, Revision, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("toolname: file store: %w", err)
	}
	defer f.Close()
	s.buf.Reset()
	if _, err := s.buf.ReadFrom(f); err != nil {
		return nil, "", fmt.Errorf("toolname: file store: %w", err)
	}
	data := s.buf.Bytes()
	return data, contentRevision(data), nil
}

// contentRevision is the revision of a file holding data: the first 128
// bits of its SHA-256, in hex.
func contentRevision(data []byte) Revision {
	sum := sha256.Sum256(data)
	return Revision(hex.EncodeToString(sum[:16]))
}

// Swap writes next to the file if rev is the revision of its content (""
// for no file), and returns the new revision; otherwise it writes nothing
// and returns an error matching [ErrStale]. A nil next is an [*Error] with
// Code [CodeInvalidTable].
func (s *FileStore) Swap(ctx context.Context, rev Revision, next *Table) (Revision, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if next == nil {
		return "", namesError("no table to store", -1, "", "", nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errClosed
	}
	if err := s.takeLock(); err != nil {
		return "", err
	}
	_, current, err := s.read()
	if err != nil {
		return "", err
	}
	if current != rev {
		return "", &Error{Code: CodeStale, Index: -1, Offset: -1}
	}
	data, err := next.MarshalJSON()
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(s.path, data); err != nil {
		return "", fmt.Errorf("toolname: file store: %w", err)
	}
	stored := contentRevision(data)
	s.guard.Stored(string(stored), next)
	return stored, nil
}

// Hold sets the table this FileStore holds, before its first Load: a
// later table must continue it, as [Holder] says.
func (s *FileStore) Hold(n *Table) error { return s.guard.Hold(n) }

// Close releases the lock. The FileStore cannot be used after it.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.closed = true
	if s.lock == nil {
		return nil
	}
	err := s.lock.Close()
	s.lock = nil
	return err
}

// writeFileAtomic writes data to path: to a temporary file in the same
// directory, synced, then renamed over path, and the directory synced, so
// that a crash leaves the old content or the new, never part of one, and
// what was written stays written.
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
