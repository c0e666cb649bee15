package errcode

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name                string
		message, hint, want string
		inputs              []string
	}{
		{name: "all", message: "m", hint: "h", inputs: []string{"offset=3", `id="x"`}, want: `pkg: c: m (offset=3, id="x"); h`},
		{name: "no inputs", message: "m", hint: "h", want: "pkg: c: m; h"},
		{name: "no hint", message: "m", inputs: []string{"index=0"}, want: "pkg: c: m (index=0)"},
		{name: "code alone", want: "pkg: c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Line("pkg", "c", tt.message, tt.hint, tt.inputs))
		})
	}
}
