package mcpid_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/previewcheck"
)

// The package's own tests check every preview they render with the shared
// checker, which imports the package: it reaches them from here.
func init() { mcpid.SetPreviewCheck(previewcheck.Check) }

// TestPreviewCheckDefaults checks that the caps the preview checker holds
// for zero options are the package's own.
func TestPreviewCheckDefaults(t *testing.T) {
	label, title, snippet := mcpid.DefaultFieldCaps()
	assert.Equal(t, label, previewcheck.DefaultMaxLabel, "MaxLabel")
	assert.Equal(t, title, previewcheck.DefaultMaxTitle, "MaxTitle")
	assert.Equal(t, snippet, previewcheck.DefaultMaxSnippet, "MaxSnippet")
}
