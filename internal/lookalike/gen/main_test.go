package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableUpToDate: the table in the tree is what the generator makes of
// the pinned confusables.txt in testdata, byte for byte, so that the data
// file, the generator and the table cannot drift apart.
func TestTableUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "table.go")
	require.NoError(t, run("../testdata/confusables.txt.gz", out))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile("../table.go")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "go generate ./internal/lookalike")
}

// TestRunRefusesBadGzip: a file named .gz that is not gzip, or that holds
// no confusables.txt, is refused with an error, and no table is written.
func TestRunRefusesBadGzip(t *testing.T) {
	dir := t.TempDir()
	var notConfusables bytes.Buffer
	zw := gzip.NewWriter(&notConfusables)
	_, err := zw.Write([]byte("0430 ; 0061 ; MA # no version\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	for name, data := range map[string][]byte{
		"text.gz":       []byte("# Version: 1\n0430 ; 0061 ; MA\n"),
		"truncated.gz":  notConfusables.Bytes()[:notConfusables.Len()/2],
		"no-version.gz": notConfusables.Bytes(),
	} {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(in, data, 0o644))
			out := filepath.Join(dir, name+".go")
			require.Error(t, run(in, out))
			assert.NoFileExists(t, out)
		})
	}
}
