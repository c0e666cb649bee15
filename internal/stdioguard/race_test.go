//go:build race

package stdioguard

// raceEnabled reports that the race detector is on: it adds allocations,
// so allocation budgets are checked without it (make check runs the
// allocation tests both ways).
const raceEnabled = true
