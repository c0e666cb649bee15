//go:build !unix

package toolname_test

import "testing"

// runUnprivileged reports that the test goes on in this process.
func runUnprivileged(*testing.T) bool { return true }
