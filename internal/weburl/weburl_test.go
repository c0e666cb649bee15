package weburl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://wiki.example.com/p/7?x=1#top", true},
		{"http://example.com", true},
		{"HTTPS://EXAMPLE.COM/A", true},
		{"https://example.com:8443/a%20b", true},
		{"https://[::1]:80/", true},
		{"https://example.com/a(b)!$&'*+,;=", true},
		{"", false},
		{"/p/7", false},
		{"p/7", false},
		{"//example.com/p", false},
		{"javascript:alert(1)", false},
		{"pdpp://c/docs/1", false},
		{"ftp://example.com/f", false},
		{"https:example.com", false},
		{"https://", false},
		{"https:///p", false},
		{"https://?q", false},
		{"https://good.example@evil.example/", false},
		{"https://user:pw@example.com/", false},
		{"https://example.com/a b", false},
		{"https://example.com/\"x\"", false},
		{"https://example.com/<script>", false},
		{"https://example.com/\\x", false},
		{"https://example.com/%zz", false},
		{"https://example.com/%4", false},
		{"https://example.com/é", false},
		{"https://example.com/\n", false},
		{"https://example.com/\x7f", false},
		{" https://example.com/", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			assert.Equal(t, tt.want, Valid(tt.url))
			assert.Equal(t, tt.want, Reference(tt.url), "reference")
		})
	}
}
