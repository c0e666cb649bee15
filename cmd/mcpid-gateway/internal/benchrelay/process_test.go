package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       procStat
	}{
		{"plain", "4242 (benchrelay) S 17 4242 17 0 -1 4194560 1285 0 0 0 31 7 0 0 20 0 9 0 1151 1253961728 3216 18446744073709551615",
			procStat{ppid: 17, cpu: 38 * clockTick}},
		{"a name with spaces and parentheses", "99 (a (b) c) R 1 99 99 0 -1 0 0 0 0 0 100 250 0 0 20 0 1 0 5 0 0 0",
			procStat{ppid: 1, cpu: 350 * clockTick}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.line))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	for _, line := range []string{"", "12 (x S 1", "12 (x) S 1 2 3", "12 (x) S one 2 3 4 5 6 7 8 9 10 11 12 13"} {
		_, err := parseStat([]byte(line))
		assert.Error(t, err, line)
	}
}

func TestQuantile(t *testing.T) {
	sorted := make([]time.Duration, 200)
	for i := range sorted {
		sorted[i] = time.Duration(i+1) * time.Microsecond
	}
	assert.Equal(t, 100*time.Microsecond, quantile(sorted, 0.50))
	assert.Equal(t, 198*time.Microsecond, quantile(sorted, 0.99))
	assert.Equal(t, 7*time.Microsecond, quantile(sorted[6:7], 0.99))
}
