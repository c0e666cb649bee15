package mcpid

import "testing"

// This file lends the external tests of the package (package mcpid_test)
// what they check against, and takes from them the preview checker.

// TableSentinels returns the sentinel the table of codes holds for each
// code, for the external tests that check their own table against it.
func TableSentinels() map[Code]error {
	m := make(map[Code]error, len(codes))
	for c, row := range codes {
		m[c] = row.Sentinel
	}
	return m
}

// DefaultFieldCaps returns the caps that a zero MaxLabel, MaxTitle and
// MaxSnippet of PreviewOptions mean.
func DefaultFieldCaps() (label, title, snippet int) {
	return defaultMaxLabel, defaultMaxTitle, defaultMaxSnippet
}

// previewCheck is the checker of both preview formats that checkPreview
// calls: previewcheck.Check, which imports this package and so can be
// imported by the external tests only. preview_check_test.go sets it with
// SetPreviewCheck as the test binary starts.
var previewCheck func(t testing.TB, out string, hits []Hit, opts PreviewOptions)

// SetPreviewCheck sets the preview checker of the package's own tests.
func SetPreviewCheck(check func(t testing.TB, out string, hits []Hit, opts PreviewOptions)) {
	previewCheck = check
}
