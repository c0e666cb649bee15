package downstream

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/home/u", "AWS_SECRET=s", "LANG=C.UTF-8", "LC_ALL=C", "LANGUAGE=en", "PATHX=1", "TOKEN=t"}
	for _, tt := range []struct {
		name    string
		environ []string
		extra   []string
		want    []string
	}{
		{"nothing", nil, nil, nil},
		{"inherited only", environ, nil, []string{"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "LANGUAGE=en"}},
		{"extra last, so that it wins", environ, []string{"TOKEN=mine", "PATH=/opt/bin"},
			[]string{"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "LANGUAGE=en", "TOKEN=mine", "PATH=/opt/bin"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Env(tt.environ, tt.extra)); diff != "" {
				t.Errorf("Env (-want +got):\n%s", diff)
			}
		})
	}
}
