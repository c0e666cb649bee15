// Package metrics is what the gateway tells its operator beyond its logs:
// Prometheus metrics of the calls it relays, of its downstreams and of
// its naming chains ([Metrics], served by [Metrics.Handler]), and an
// OpenTelemetry span per call when the environment asks for traces
// ([StartTracing]).
//
// Every label takes its values from a set closed at start: a server label
// only the configured servers' names (or "" for a call routed to none), an
// outcome label only an [Outcome]. Nothing a caller or a downstream sends
// becomes a label value, so neither can grow the number of series. The
// chains' generations are gauges' values, never labels, for the same
// reason: each one would be a new series.
//
// The metrics are the Prometheus client's own, on a registry of the
// gateway's (never the process-wide default one): the text format a
// Prometheus server scrapes is its native output, with no translation
// layer whose names, suffixes or units could drift from the names this
// package pins.
package metrics
