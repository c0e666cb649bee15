//go:build unix

package dbserver

import "syscall"

// Pause stops the server's process (SIGSTOP) without closing its
// connections, as a hung server: clients wait for answers that do not
// come. Resume, or the test's end, lets it go on. Only a Redis server can
// be paused; Pause fails the test for any other.
func (s *Server) Pause() { s.send(syscall.SIGSTOP) }

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() { s.send(syscall.SIGCONT) }

// send sends sig to the server's process, failing the test if it cannot.
func (s *Server) send(sig syscall.Signal) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.signal == nil || !s.running {
		s.t.Fatalf("the server at %s cannot be sent %v", s.URL, sig)
	}
	if err := s.signal(sig); err != nil {
		s.t.Fatalf("sending %v to the server at %s: %v", sig, s.URL, err)
	}
}
