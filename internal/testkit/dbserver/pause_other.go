//go:build !unix

package dbserver

// Pause skips the test: stopping a process without ending it needs a
// unix signal.
func (s *Server) Pause() { s.t.Skip("pausing a server needs SIGSTOP (unix)") }

// Resume does nothing: Pause skipped the test.
func (s *Server) Resume() {}
