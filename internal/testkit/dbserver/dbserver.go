// Package dbserver gives the tests of the Redis and PostgreSQL stores
// their servers: the shared ones that `make check` starts (see
// .ci/services), and instances of a test's own, to stop, restart or
// empty. Tests only: it is a kit, not a feature.
//
// The shared servers are named by MCPID_REDIS_URL and MCPID_POSTGRES_URL;
// own instances are started from MCPID_REDIS_SERVER (the redis-server
// binary) and MCPID_PG_BINDIR (PostgreSQL's bin directory). Without them
// a test skips, saying how to run it, except under CI=true, where it
// fails: CI must not pass by testing nothing. Under -short (make test, the
// tests that need no server) it skips whatever the environment says.
package dbserver

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// How to get the servers, for the skip message.
const howTo = "run `make test-stores` or `make check` (each starts a Redis and a PostgreSQL server of its own, and sets it), or `.ci/services go test ./...`"

// Env returns the environment variable name, or skips t when it is unset
// (fails it under CI=true). Under -short it skips t, set or not, CI=true
// or not: a short run needs no server.
func Env(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs a database server (%s): skipped under -short; %s", name, howTo)
	}
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set, and CI=true: the store tests must run against a real server; %s", name, howTo)
	}
	t.Skipf("%s is not set: %s", name, howTo)
	return ""
}

// RedisURL returns the shared Redis server's URL, MCPID_REDIS_URL.
func RedisURL(t testing.TB) string {
	t.Helper()
	return Env(t, "MCPID_REDIS_URL")
}

// PostgresURL returns the shared PostgreSQL server's URL,
// MCPID_POSTGRES_URL.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return Env(t, "MCPID_POSTGRES_URL")
}

// Server is a database server of a test's own, on 127.0.0.1 at a port
// of its own, with its data in a temporary directory. Stop and Start stop
// it and start it again on the same port and data. It is stopped and
// its data deleted when the test ends.
type Server struct {
	// URL is the URL a client connects with.
	URL string

	t     testing.TB
	port  int
	start func() error
	stop  func() error
	// signal sends a signal to the server's process; nil for a server
	// that Pause cannot stop (PostgreSQL runs many processes).
	signal func(os.Signal) error

	mu      sync.Mutex
	running bool
}

// Stop stops the server at once, as a crash would (SIGKILL for Redis,
// PostgreSQL's immediate shutdown): what it acknowledged stays on disk.
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return
	}
	if err := s.stop(); err != nil {
		s.t.Fatalf("stopping the server at %s: %v", s.URL, err)
	}
	s.running = false
}

// Start starts the stopped server again, on the same port and data, and
// returns when it accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return
	}
	if err := s.start(); err != nil {
		s.t.Fatalf("starting the server at %s again: %v", s.URL, err)
	}
	s.running = true
}

// freePort returns a TCP port nothing listens on at 127.0.0.1 now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// launch starts s for the first time and arranges its end, retrying on
// another port when the first one was taken meanwhile.
func launch(t testing.TB, s *Server, dir string) *Server {
	t.Helper()
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running {
			if err := s.stop(); err != nil {
				t.Errorf("stopping the server at %s: %v", s.URL, err)
			}
		}
		os.RemoveAll(dir)
	})
	if err := s.start(); err != nil {
		t.Fatalf("starting a server in %s: %v", dir, err)
	}
	s.running = true
	return s
}

// StartRedis starts a redis-server of the test's own (MCPID_REDIS_SERVER)
// with the append-only file synced on every write, so that a Stop loses
// nothing it acknowledged.
func StartRedis(t testing.TB) *Server {
	t.Helper()
	bin := Env(t, "MCPID_REDIS_SERVER")
	dir, err := os.MkdirTemp("", "mcpid-redis-test-")
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), t: t, port: port}
	var cmd *exec.Cmd
	var done chan struct{}
	s.start = func() error {
		cmd = exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--dir", dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
			"--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			return err
		}
		done = make(chan struct{})
		go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(cmd, done)
		if err := waitRedis(port, done); err != nil {
			cmd.Process.Kill()
			<-done
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return fmt.Errorf("%w\n%s", err, log)
		}
		return nil
	}
	s.stop = func() error {
		if err := cmd.Process.Kill(); err != nil {
			return err
		}
		<-done
		return nil
	}
	s.signal = func(sig os.Signal) error { return cmd.Process.Signal(sig) }
	return launch(t, s, dir)
}

// waitRedis waits until the Redis on port answers PING, or its process
// ended (done closed), for up to 10 seconds.
func waitRedis(port int, done <-chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return errors.New("redis-server exited")
		default:
		}
		if pingRedis(port) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("redis-server did not answer PING within 10s")
}

// pingRedis sends PING to the Redis on port and checks the answer.
func pingRedis(port int) error {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// StartPostgres starts a PostgreSQL server of the test's own, from
// MCPID_PG_BINDIR: initdb into a temporary directory and pg_ctl, as the
// user nobody when the test runs as root (PostgreSQL refuses root). Its
// URL connects as the superuser postgres, trusted, to the database
// postgres.
func StartPostgres(t testing.TB) *Server {
	t.Helper()
	bindir := Env(t, "MCPID_PG_BINDIR")
	dir, err := os.MkdirTemp("", "mcpid-postgres-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := unprivileged(dir); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("giving %s to an unprivileged user: %v", dir, err)
	}
	data := filepath.Join(dir, "data")
	if out, err := pgCommand(filepath.Join(bindir, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	conf := fmt.Sprintf("\nport = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\nfsync = off\nfull_page_writes = off\n", port)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	ctl := filepath.Join(bindir, "pg_ctl")
	s := &Server{URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), t: t, port: port}
	s.start = func() error {
		out, err := pgCommand(ctl, "-D", data, "-l", filepath.Join(dir, "postgres.log"), "-w", "-t", "60", "start").CombinedOutput()
		if err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
		}
		return nil
	}
	s.stop = func() error {
		out, err := pgCommand(ctl, "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput()
		if err != nil {
			return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
		}
		return nil
	}
	return launch(t, s, dir)
}
