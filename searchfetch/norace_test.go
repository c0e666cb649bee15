//go:build !race

package searchfetch_test

// raceEnabled reports that the race detector is on; see race_test.go.
const raceEnabled = false
