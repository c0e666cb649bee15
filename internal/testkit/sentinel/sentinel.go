// Package sentinel gives the tests outside package mcpid (the fuzz
// targets, the adapters' shared checks) the sentinel of each of its
// codes, from the sentinels it exports. The tests of package mcpid check
// that the table agrees with the package's own table of codes. It is for
// tests only.
package sentinel

import "github.com/mcpid/mcpid"

// byCode holds the exported sentinel of each of mcpid's codes.
var byCode = map[mcpid.Code]error{
	mcpid.CodeInvalidID:               mcpid.ErrInvalidID,
	mcpid.CodeInvalidConnectionID:     mcpid.ErrInvalidConnectionID,
	mcpid.CodeConflictingConnectionID: mcpid.ErrConflictingConnectionID,
	mcpid.CodeAmbiguousConnection:     mcpid.ErrAmbiguousConnection,
	mcpid.CodeNotFound:                mcpid.ErrNotFound,
	mcpid.CodeResourceUnavailable:     mcpid.ErrResourceUnavailable,
	mcpid.CodeResourceError:           mcpid.ErrResourceError,
	mcpid.CodeInvalidResourceResponse: mcpid.ErrInvalidResourceResponse,
	mcpid.CodeUnknownID:               mcpid.ErrUnknownID,
	mcpid.CodeForbidden:               mcpid.ErrForbidden,
}

// For returns the sentinel that errors.Is matches for an mcpid error with
// code, or nil for a code mcpid does not have.
func For(code mcpid.Code) error { return byCode[code] }

// Codes returns every code the table has a sentinel for.
func Codes() []mcpid.Code {
	codes := make([]mcpid.Code, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	return codes
}
