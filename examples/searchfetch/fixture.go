package main

import (
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// fixture is an in-process resource server with a few records in five
// connections. Two of them, cin_4f2a and cin_9b7e, are both Shopify
// stores and share the record key orders:o1, so an unscoped read of
// orders:o1 is ambiguous. Two others hold records whose ids no plain
// handle can carry: the wiki page https://wiki.example.com/p/7 in cin_9b1c
// and the file files:reports/q3.pdf in cin_d21e, which search shows as
// opaque handles. It logs every request it receives, so tests and the demo
// can show what reached it.
type fixture struct {
	mux *http.ServeMux

	mu  sync.Mutex
	log []string // the escaped path and query of each request
}

// fixtureConnection is one connection of the fixture.
type fixtureConnection struct {
	id, connectorKey, displayName string
}

// fixtureRecord is one record of the fixture, in one connection. id is
// the record's id within its connection: a legacy stream:record, or any
// other key (a URL, a path-like key) that only an opaque handle can carry.
type fixtureRecord struct {
	connectionID, id, stream string
	title, snippet, text     string
	url                      string // the record's page in its source system
	metadata                 map[string]string
}

// fixtureConnections are the fixture's connections.
var fixtureConnections = []fixtureConnection{
	{"cin_4f2a", "shopify", "Orders (EU)"},
	{"cin_9b7e", "shopify", "Orders (US)"},
	{"cin_77c1", "zendesk", "Support tickets"},
	{"cin_9b1c", "confluence", "Wiki"},
	{"cin_d21e", "gdrive", "Shared drive"},
}

// fixtureRecords are the fixture's records, in the order that search
// returns them and that a 409 lists their connections in. Ids are compared
// byte for byte, like the handles that carry them.
var fixtureRecords = []fixtureRecord{
	{
		connectionID: "cin_4f2a", id: "orders:o1", stream: "orders",
		title:    "Order o1: 3 kg espresso beans",
		snippet:  "Shipped to Lyon, paid by card.",
		text:     "Order o1 (EU store). 3 kg espresso beans, shipped to Lyon on 2 May, paid by card.",
		url:      "https://eu-shop.example/admin/orders/o1",
		metadata: map[string]string{"currency": "EUR", "total": "54.00"},
	},
	{
		connectionID: "cin_9b7e", id: "orders:o1", stream: "orders",
		title:    "Order o1: espresso grinder",
		snippet:  "Backordered, ships from Denver.",
		text:     "Order o1 (US store). One espresso grinder, backordered, ships from Denver.",
		url:      "https://us-shop.example/admin/orders/o1",
		metadata: map[string]string{"currency": "USD", "total": "349.00"},
	},
	{
		connectionID: "cin_9b7e", id: "orders:o2", stream: "orders",
		title:    "Order o2: milk frother",
		snippet:  "Delivered to Austin.",
		text:     "Order o2 (US store). One milk frother, delivered to Austin.",
		url:      "https://us-shop.example/admin/orders/o2",
		metadata: map[string]string{"currency": "USD", "total": "89.00"},
	},
	{
		connectionID: "cin_4f2a", id: "orders:o#1042?gift=yes", stream: "orders",
		title:    "Order o#1042: espresso cups, gift wrapped",
		snippet:  "A record key with '#', '?' and '=' in it.",
		text:     "Order o#1042 (EU store). Six espresso cups, gift wrapped.",
		url:      "https://eu-shop.example/admin/orders/o%231042%3Fgift=yes",
		metadata: map[string]string{"currency": "EUR", "total": "36.00"},
	},
	{
		connectionID: "cin_77c1", id: "tickets:urn:zd:4711", stream: "tickets",
		title:    "Ticket 4711: \"grinder is too loud\"",
		snippet:  "Customer asks about the espresso grinder from order o1.",
		text:     "Ticket 4711. The customer says the espresso grinder from order o1 is too loud.",
		url:      "https://support.example/tickets/4711",
		metadata: map[string]string{"status": "open"},
	},
	{
		connectionID: "cin_77c1", id: "tickets:café-crème", stream: "tickets",
		title:    "Ticket café-crème: recipe question",
		snippet:  "A record key with non-ASCII letters.",
		text:     "Ticket café-crème. How much milk goes into a café crème?",
		url:      "https://support.example/tickets/caf%C3%A9-cr%C3%A8me",
		metadata: map[string]string{"status": "solved"},
	},
	{
		connectionID: "cin_9b1c", id: "https://wiki.example.com/p/7", stream: "pages",
		title:    "Runbook: descaling the shop's machines",
		snippet:  "A page whose id is its URL.",
		text:     "Descale every machine monthly; see the Q3 report for the kits sold.",
		url:      "https://wiki.example.com/p/7",
		metadata: map[string]string{"space": "OPS"},
	},
	{
		connectionID: "cin_d21e", id: "files:reports/q3.pdf", stream: "files",
		title:    "Q3 report: descaling kits sold",
		snippet:  "A file whose key holds '/'.",
		text:     "Q3 report. 412 descaling kits sold, up 18% on Q2.",
		url:      "https://drive.example/files/reports/q3.pdf",
		metadata: map[string]string{"mime_type": "application/pdf"},
	},
}

// newFixture returns a fixture resource server.
func newFixture() *fixture {
	f := &fixture{mux: http.NewServeMux()}
	f.mux.HandleFunc("GET /v1/search", f.search)
	f.mux.HandleFunc("GET /v1/streams/{stream}/records/{record_id}", f.recordAtPath)
	f.mux.HandleFunc("GET /v1/records", f.recordByID)
	return f
}

// ServeHTTP logs the request and serves it. The log entry is appended
// before the answer is written, so a client that has its answer sees its
// request in the log.
func (f *fixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, r.URL.RequestURI())
	f.mu.Unlock()
	f.mux.ServeHTTP(w, r)
}

// requests returns the escaped path and query of every request received,
// oldest first.
func (f *fixture) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
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
			ID:           rec.id,
			ConnectionID: conn.id,
			ConnectorKey: conn.connectorKey,
			Stream:       rec.stream,
			DisplayName:  conn.displayName,
			Title:        rec.title,
			Snippet:      rec.snippet,
			URL:          rec.url,
		})
	}
	res.Total = len(res.Hits)
	writeJSON(w, http.StatusOK, res)
}

// recordAtPath answers GET /v1/streams/{stream}/records/{record_id}, the
// read of a plain handle: the record stream:record_id in the connection
// named by connection_id, or, without one, in every connection that holds
// it. The path segments arrive escaped and are compared unescaped.
func (f *fixture) recordAtPath(w http.ResponseWriter, r *http.Request) {
	stream := r.PathValue("stream")
	id := stream + ":" + r.PathValue("record_id")
	connID, scoped := r.URL.Query()["connection_id"]
	var found []fixtureRecord
	for _, rec := range fixtureRecords {
		if rec.stream == stream && rec.id == id && (!scoped || rec.connectionID == connID[0]) {
			found = append(found, rec)
		}
	}
	answerRecord(w, found)
}

// recordByID answers GET /v1/records?connection_id=...&id=..., the read of
// an opaque handle: the record whose id is id in the connection
// connection_id. The id is a key to look up, never a path; a read without
// a connection is refused, since an opaque id means nothing outside its
// connection.
func (f *fixture) recordByID(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	connID, id := q.Get("connection_id"), q.Get("id")
	if connID == "" || id == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": "bad_request"})
		return
	}
	var found []fixtureRecord
	for _, rec := range fixtureRecords {
		if rec.connectionID == connID && rec.id == id {
			found = append(found, rec)
		}
	}
	answerRecord(w, found)
}

// answerRecord answers a record read that found the given records: 404
// for none, the document for one, and 409 ambiguous_connection, listing
// their connections, for several.
func answerRecord(w http.ResponseWriter, found []fixtureRecord) {
	switch len(found) {
	case 0:
		writeJSON(w, http.StatusNotFound, map[string]string{"code": "not_found"})
	case 1:
		rec := found[0]
		writeJSON(w, http.StatusOK, rsDocument{
			ConnectionID: rec.connectionID,
			ID:           rec.id,
			Stream:       rec.stream,
			Title:        rec.title,
			Text:         rec.text,
			URL:          rec.url,
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

// startFixture serves a new fixture on ln. It returns the fixture, its
// base URL and a function that stops it.
func startFixture(ln net.Listener) (*fixture, string, func()) {
	f := newFixture()
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return f, "http://" + ln.Addr().String(), func() { _ = srv.Close() }
}
