//go:build race

package searchfetch_test

// raceEnabled reports that the race detector is on: it makes sync.Pool
// drop items at random, which encoding/json's buffers rest on, so
// allocation counts are compared without it.
const raceEnabled = true
