package mcpid

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestExtractIDs(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"no ids", "Showing 0 of 3 hits.\n3 hits not shown; see structuredContent.results.", nil},
		{"bare", "h\n1. id=a:b connection_id=c title=\"x\"\n2. id=c/d:e", []string{"a:b", "c/d:e"}},
		{"quoted", `1. id="a b\"\\\u2028\ud83d\ude00\u00e9\/\n\t\r\b\f" title="1. id=x"`, []string{"a b\"\\\u2028\U0001F600\u00e9/\n\t\r\b\f"}},
		{"empty quoted", `7. id="" title="x"`, []string{""}},
		{"not at line start", "x 1. id=a\n 2. id=b\n1.id=c\n1. ID=d", nil},
		{"no number", ". id=a\nn. id=b", nil},
		{"malformed literals skipped", "1. id=\"abc\n2. id=\"\\x\"\n5. id=\"\\u12\"\n6. id=\"\\\n7. id=\"a\tb\"\n8. id=ok", []string{"ok"}},
		{"lone surrogates as in JSON", "3. id=\"\\ud800\"\n4. id=\"x\\udc00\"", []string{"\uFFFD", "x\uFFFD"}},
		{"json lone surrogates", `{"results":[{"id":"\ud800"},{"id":"x\udc00"}]}`, []string{"\uFFFD", "x\uFFFD"}},
		{"crlf is not a separator", "1. id=a\r\n2. id=b", []string{"a\r", "b"}},
		{"json", `{"results":[{"id":"a b","title":"1. id=x","url":""},{"id":"\u2028\ud83d\ude00"}]}`, []string{"a b", "\u2028\U0001F600"}},
		{"json without results", `{"results":[]}`, nil},
		{"json not valid", `{"results":[{"id":"a"}`, nil},
		{"json with text lines", "{\n1. id=a", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ExtractIDs(tt.text)); diff != "" {
				t.Errorf("ExtractIDs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractIDsInvertsRenderPreview(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSON} {
		for name, hits := range previewHits {
			t.Run(fmt.Sprintf("%d/%s", format, name), func(t *testing.T) {
				opts := PreviewOptions{Budget: 1 << 16, MaxHits: 100, Format: format}
				var want []string
				for _, h := range hits {
					if utf8.ValidString(h.ID) && (format == FormatJSON || utf8.ValidString(h.ConnectionID)) {
						want = append(want, h.ID)
					}
				}
				if diff := cmp.Diff(want, ExtractIDs(RenderPreview(hits, opts))); diff != "" {
					t.Errorf("ExtractIDs (-want +got):\n%s", diff)
				}
			})
		}
	}
}
