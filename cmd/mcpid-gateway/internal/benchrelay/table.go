package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// summary is the median of a path's rounds, metric by metric.
type summary struct {
	p50, p99 time.Duration
	perSec   float64
	cpu      [3]time.Duration
}

// total is the CPU time per call of every process on the path.
func (s summary) total() time.Duration { return s.cpu[0] + s.cpu[1] + s.cpu[2] }

// summarize returns the medians of rounds.
func summarize(rounds []round) summary {
	var s summary
	s.p50 = median(rounds, func(r round) time.Duration { return r.p50 })
	s.p99 = median(rounds, func(r round) time.Duration { return r.p99 })
	s.perSec = median(rounds, func(r round) float64 { return r.perSec })
	for i := range s.cpu {
		s.cpu[i] = median(rounds, func(r round) time.Duration { return r.cpu[i] })
	}
	return s
}

// median returns the median of f over rounds (the mean of the middle two
// of an even number).
func median[T time.Duration | float64](rounds []round, f func(round) T) T {
	v := make([]T, len(rounds))
	for i, r := range rounds {
		v[i] = f(r)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// writeTable writes the table of one concurrency, as Markdown: each
// path's medians, what each relay adds over the direct call, and the
// ratio of what each gateway adds to what the bare relay adds.
func writeTable(w io.Writer, c int, paths []*path, results [][]round) {
	s := make([]summary, len(paths))
	for i := range paths {
		s[i] = summarize(results[i])
	}
	fmt.Fprintf(w, "c=%d\n\n", c)
	fmt.Fprintln(w, "| path | p50 | p99 | calls/s | CPU µs/call: client | relay | downstream | all | added p50 | added CPU |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for i, p := range paths {
		added := "|"
		if i > 0 {
			added = fmt.Sprintf("+%s | +%s", us(s[i].p50-s[0].p50), us(s[i].total()-s[0].total()))
		}
		relay := us(s[i].cpu[1])
		if p.relay == 0 {
			relay = "–"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n", p.name, us(s[i].p50), us(s[i].p99), s[i].perSec,
			us(s[i].cpu[0]), relay, us(s[i].cpu[2]), us(s[i].total()), added)
	}
	fmt.Fprintln(w)
	bare := s[1]
	for i, gw := range s[2:] {
		fmt.Fprintf(w, "%s-added / bare-added: p50 %.2fx, CPU %.2fx\n", paths[2+i].name,
			float64(gw.p50-s[0].p50)/float64(bare.p50-s[0].p50), float64(gw.total()-s[0].total())/float64(bare.total()-s[0].total()))
	}
	fmt.Fprintln(w)
}

// us formats d in whole microseconds.
func us(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }
