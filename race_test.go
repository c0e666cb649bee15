//go:build race

package mcpid

// raceEnabled reports that the race detector is on: it makes sync.Pool
// drop items at random, so allocation budgets that rest on a pool are
// checked without it (make check runs the allocation tests both ways).
const raceEnabled = true
