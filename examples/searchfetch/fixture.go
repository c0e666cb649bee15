package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// fixture is an in-process resource server with a few records in three
// connections. Two of them, cin_4f2a and cin_9b7e, are both Shopify
// stores and share the record key orders:o1, so an unscoped read of
// orders:o1 is ambiguous. It logs every request it receives, so tests can
// count what reached it.
type fixture struct {
	mux *http.ServeMux

	mu  sync.Mutex
	log []fixtureRequest
}

// fixtureRequest is one request as the fixture received it.
type fixtureRequest struct {
	// URI is the escaped path and query, as sent.
	URI string
	// Record is true for a record read; Stream and RecordID are then the
	// unescaped path segments and ConnectionID the query value.
	Record       bool
	Stream       string
	RecordID     string
	ConnectionID string
}

// fixtureConnection is one connection of the fixture.
type fixtureConnection struct {
	id, connectorKey, displayName string
}

// fixtureRecord is one record of the fixture, in one connection.
type fixtureRecord struct {
	connectionID, stream, recordID string
	title, snippet, text           string
	metadata                       map[string]string
}

// fixtureConnections are the fixture's connections, in the order that
// ambiguous_connection answers list them.
var fixtureConnections = []fixtureConnection{
	{"cin_4f2a", "shopify", "Orders (EU)"},
	{"cin_9b7e", "shopify", "Orders (US)"},
	{"cin_77c1", "zendesk", "Support tickets"},
}

// fixtureRecords are the fixture's records, in search order. Record keys
// are compared byte for byte, like the ids that carry them.
var fixtureRecords = []fixtureRecord{
	{
		connectionID: "cin_4f2a", stream: "orders", recordID: "o1",
		title:    "Order o1: 3 kg espresso beans",
		snippet:  "Shipped to Lyon, paid by card.",
		text:     "Order o1 (EU store). 3 kg espresso beans, shipped to Lyon on 2 May, paid by card.",
		metadata: map[string]string{"currency": "EUR", "total": "54.00"},
	},
	{
		connectionID: "cin_9b7e", stream: "orders", recordID: "o1",
		title:    "Order o1: espresso grinder",
		snippet:  "Backordered, ships from Denver.",
		text:     "Order o1 (US store). One espresso grinder, backordered, ships from Denver.",
		metadata: map[string]string{"currency": "USD", "total": "349.00"},
	},
	{
		connectionID: "cin_9b7e", stream: "orders", recordID: "o2",
		title:    "Order o2: milk frother",
		snippet:  "Delivered to Austin.",
		text:     "Order o2 (US store). One milk frother, delivered to Austin.",
		metadata: map[string]string{"currency": "USD", "total": "89.00"},
	},
	{
		connectionID: "cin_4f2a", stream: "orders", recordID: "o#1042?gift=yes",
		title:    "Order o#1042: espresso cups, gift wrapped",
		snippet:  "A record key with '#', '?' and '=' in it.",
		text:     "Order o#1042 (EU store). Six espresso cups, gift wrapped.",
		metadata: map[string]string{"currency": "EUR", "total": "36.00"},
	},
	{
		connectionID: "cin_77c1", stream: "tickets", recordID: "urn:zd:4711",
		title:    "Ticket 4711: \"grinder is too loud\"",
		snippet:  "Customer asks about the espresso grinder from order o1.",
		text:     "Ticket 4711. The customer says the espresso grinder from order o1 is too loud.",
		metadata: map[string]string{"status": "open"},
	},
	{
		connectionID: "cin_77c1", stream: "tickets", recordID: "café-crème",
		title:    "Ticket café-crème: recipe question",
		snippet:  "A record key with non-ASCII letters.",
		text:     "Ticket café-crème. How much milk goes into a café crème?",
		metadata: map[string]string{"status": "solved"},
	},
}

// newFixture returns a fixture resource server.
func newFixture() *fixture {
	f := &fixture{mux: http.NewServeMux()}
	f.mux.HandleFunc("GET /v1/search", f.search)
	f.mux.HandleFunc("GET /v1/streams/{stream}/records/{record_id}", f.record)
	return f
}

// ServeHTTP logs the request and serves it. The log entry is appended
// before the answer is written, so a client that has its answer sees its
// request in the log.
func (f *fixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, fixtureRequest{URI: r.URL.RequestURI()})
	i := len(f.log) - 1
	f.mu.Unlock()
	f.mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), logIndex{}, i)))
}

// logIndex is the context key of a request's index in the fixture's log.
type logIndex struct{}

// requests returns a copy of the request log, oldest first.
func (f *fixture) requests() []fixtureRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

// reads returns the record reads of the request log, oldest first.
func (f *fixture) reads() []fixtureRequest {
	var reads []fixtureRequest
	for _, r := range f.requests() {
		if r.Record {
			reads = append(reads, r)
		}
	}
	return reads
}

// count returns how many requests had the escaped path and query uri.
func (f *fixture) count(uri string) int {
	n := 0
	for _, r := range f.requests() {
		if r.URI == uri {
			n++
		}
	}
	return n
}

// search answers GET /v1/search?q=...: the records whose title, snippet or
// text contains q, ignoring case; every record when q is empty.
func (f *fixture) search(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(r.URL.Query().Get("q"))
	res := rsSearchResult{Hits: []rsHit{}}
	for _, rec := range fixtureRecords {
		all := strings.ToLower(rec.title + "\n" + rec.snippet + "\n" + rec.text)
		if !strings.Contains(all, q) {
			continue
		}
		conn := connectionByID(rec.connectionID)
		res.Hits = append(res.Hits, rsHit{
			ID:           rec.stream + ":" + rec.recordID, // the legacy id
			ConnectionID: conn.id,
			ConnectorKey: conn.connectorKey,
			Stream:       rec.stream,
			DisplayName:  conn.displayName,
			Title:        rec.title,
			Snippet:      rec.snippet,
			URL:          rec.url(),
		})
	}
	res.Total = len(res.Hits)
	writeJSON(w, http.StatusOK, res)
}

// record answers GET /v1/streams/{stream}/records/{record_id}: the record
// in the connection named by connection_id, or, without one, in the only
// connection that holds it; 409 ambiguous_connection when several do.
// The path segments arrive escaped and are compared unescaped, byte for
// byte.
func (f *fixture) record(w http.ResponseWriter, r *http.Request) {
	stream, recordID := r.PathValue("stream"), r.PathValue("record_id")
	connID, scoped := r.URL.Query()["connection_id"]
	if i, ok := r.Context().Value(logIndex{}).(int); ok {
		f.mu.Lock()
		e := &f.log[i]
		e.Record, e.Stream, e.RecordID = true, stream, recordID
		if scoped {
			e.ConnectionID = connID[0]
		}
		f.mu.Unlock()
	}

	var found []fixtureRecord
	for _, rec := range fixtureRecords {
		if rec.stream == stream && rec.recordID == recordID && (!scoped || rec.connectionID == connID[0]) {
			found = append(found, rec)
		}
	}
	switch len(found) {
	case 0:
		writeJSON(w, http.StatusNotFound, map[string]string{"code": "not_found"})
	case 1:
		rec := found[0]
		writeJSON(w, http.StatusOK, rsDocument{
			ConnectionID: rec.connectionID,
			Stream:       rec.stream,
			RecordID:     rec.recordID,
			Title:        rec.title,
			Text:         rec.text,
			URL:          rec.url(),
			Metadata:     rec.metadata,
		})
	default:
		conflict := rsConflict{Code: "ambiguous_connection"}
		for _, rec := range found {
			conflict.AvailableConnections = append(conflict.AvailableConnections, rec.connectionID)
		}
		writeJSON(w, http.StatusConflict, conflict)
	}
}

// url is the record's page in its source system.
func (rec fixtureRecord) url() string {
	return "https://" + connectionByID(rec.connectionID).connectorKey + ".example/" +
		rec.connectionID + "/" + url.PathEscape(rec.stream) + "/" + url.PathEscape(rec.recordID)
}

// connectionByID returns the fixture connection with the given id.
func connectionByID(id string) fixtureConnection {
	for _, c := range fixtureConnections {
		if c.id == id {
			return c
		}
	}
	return fixtureConnection{id: id}
}

// writeJSON writes v as a JSON answer with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// startFixture serves a new fixture on 127.0.0.1 at a free port. It
// returns the fixture, its base URL and a function that stops it.
func startFixture() (*fixture, string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	f := newFixture()
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return f, "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}
