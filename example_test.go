package mcpid_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpid/mcpid"
)

func ExampleParse() {
	h, err := mcpid.Parse("cin_4f2a/orders:o1")
	if err != nil {
		panic(err)
	}
	fmt.Println(h.ConnectionID(), h.Stream(), h.RecordID(), h.IsSelfContained())

	// The legacy form splits at the first ':'; the record keeps the rest.
	legacy := mcpid.MustParse("tickets:urn:jira:42")
	fmt.Printf("%q %q %q\n", legacy.ConnectionID(), legacy.Stream(), legacy.RecordID())

	// Traversal fails before anything reaches a resource server.
	_, err = mcpid.Parse("cin_4f2a/orders:../../etc/passwd")
	var e *mcpid.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Segment, e.Offset)
	}
	// Output:
	// cin_4f2a orders o1 true
	// "" "tickets" "urn:jira:42"
	// invalid_id record 16
}

func ExampleEncode() {
	id, err := mcpid.Encode("cin_4f2a", "orders", "o1")
	fmt.Println(id, err)

	legacy, _ := mcpid.Encode("", "orders", "o1")
	fmt.Println(legacy)

	// A connection id may hold '/' and ':'; they are escaped.
	gcp, _ := mcpid.Encode("projects/p1/connections/c2", "orders", "o1")
	fmt.Println(gcp)

	_, err = mcpid.Encode("cin/../4f2a", "orders", "o1")
	var e *mcpid.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Segment, e.Offset)
	}
	// Output:
	// cin_4f2a/orders:o1 <nil>
	// orders:o1
	// projects%2Fp1%2Fconnections%2Fc2/orders:o1
	// invalid_id connection 4
}

func ExampleSelfContainedID() {
	// What a search tool does to each hit before the model sees it.
	for _, hit := range []struct{ id, conn string }{
		{"orders:o1", "cin_4f2a"},                      // a legacy handle gets its connection
		{"https://wiki.example.com/p/7", "cin_9b1c"},   // a URL: opaque
		{"files:reports/q3.pdf", "cin_drive"},          // a key with '/': opaque
		{"reports/2024:q3.pdf", "reports"},             // looks like a handle: opaque, never guessed
		{"2024:q3.pdf", "reports"},                     // its neighbour keeps its own id
		{"octo/repo#42", "projects/p1/connections/c2"}, // the connection is escaped
		{"orders:o1", ""},                              // no connection: unchanged
	} {
		id, embedded := mcpid.SelfContainedID(hit.id, hit.conn)
		fmt.Println(id, embedded)
	}
	// Output:
	// cin_4f2a/orders:o1 true
	// cin_9b1c/:https://wiki.example.com/p/7 true
	// cin_drive/:files:reports/q3.pdf true
	// reports/:reports/2024:q3.pdf true
	// reports/2024:q3.pdf true
	// projects%2Fp1%2Fconnections%2Fc2/:octo/repo#42 true
	// orders:o1 false
}

func ExampleHandle_BaseID() {
	// A server resolves an opaque handle by looking its base id up within
	// its connection; it never builds a path from it.
	for _, id := range []string{"cin_9b1c/:https://wiki.example.com/p/7", "cin_4f2a/orders:o1"} {
		req, err := mcpid.ResolveFetch(id, "")
		if err != nil {
			panic(err)
		}
		h := req.Handle
		fmt.Printf("%s %q %q opaque=%v path=%q\n", req.ConnectionID, h.Stream(), h.BaseID(), h.IsOpaque(), req.RecordPath())
	}
	// Output:
	// cin_9b1c "" "https://wiki.example.com/p/7" opaque=true path=""
	// cin_4f2a "orders" "orders:o1" opaque=false path="/v1/streams/orders/records/o1"
}

func ExampleResolveFetch() {
	// A self-contained id alone is scoped to its connection.
	req, _ := mcpid.ResolveFetch("cin_4f2a/orders:o1", "")
	fmt.Println(req.Scope, req.ConnectionID, req.RecordPath(), req.Query().Encode())

	// A legacy id is scoped by the connection_id argument...
	req, _ = mcpid.ResolveFetch("orders:o1", "cin_9b7e")
	fmt.Println(req.Scope, req.ConnectionID, req.EchoID)

	// ...or left to the resource server without it.
	req, _ = mcpid.ResolveFetch("orders:o1", "")
	fmt.Println(req.Scope, req.ConnectionID == "")

	// Two different connections are a typed error, before any request.
	_, err := mcpid.ResolveFetch("cin_4f2a/orders:o1", "cin_9b7e")
	fmt.Println(errors.Is(err, mcpid.ErrConflictingConnectionID))
	fmt.Println(err)
	// Output:
	// embedded cin_4f2a /v1/streams/orders/records/o1 connection_id=cin_4f2a
	// explicit cin_9b7e orders:o1
	// unscoped true
	// true
	// mcpid: conflicting_connection_id: the id names a different connection than connection_id (connection_id="cin_9b7e", embedded_connection_id="cin_4f2a"); pass the id alone, without connection_id
}

func ExampleFetchRequest_RecordPath() {
	// Every segment is escaped: a record id cannot add a path segment,
	// a query or a fragment.
	req, _ := mcpid.ResolveFetch("c/web pages:a?b#c%d", "")
	fmt.Println(req.RecordPath())
	// Output:
	// /v1/streams/web%20pages/records/a%3Fb%23c%25d
}

func ExampleAmbiguousConnection() {
	// A server relays the resource server's 409 as a typed tool error.
	err := mcpid.AmbiguousConnection([]string{"cin_4f2a", "cin_9b7e"})
	out, _ := json.Marshal(err)
	fmt.Println(string(out))
	// Output:
	// {"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 2 connections","hint":"retry with connection_id set to one of available_connections","available_connections":["cin_4f2a","cin_9b7e"],"retry_with":"connection_id"}
}

func ExampleError_MarshalJSON() {
	_, err := mcpid.ResolveFetch("orders:o1", "cin/../x")
	out, _ := json.Marshal(err)
	fmt.Println(string(out))
	// Output:
	// {"type":"adapter_error","code":"invalid_connection_id","message":"connection_id contains \"..\"","hint":"pass connection_id exactly as search returned it, or omit it","field":"connection_id","offset":4,"connection_id":"cin/../x"}
}

func ExampleError_UnmarshalJSON() {
	// A client got this tool error: the text of content[0].
	text := `{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 2 connections","hint":"retry with connection_id set to one of available_connections","available_connections":["cin_4f2a","cin_9b7e"],"retry_with":"connection_id"}`

	var e mcpid.Error
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		panic(err)
	}
	if errors.Is(&e, mcpid.ErrAmbiguousConnection) {
		// Retry the fetch with one of the listed connections.
		req, err := mcpid.ResolveFetch("orders:o1", e.Available[0])
		fmt.Println(req.Scope, req.ConnectionID, err)
	}
	// Output:
	// explicit cin_4f2a <nil>
}

func ExampleNewError() {
	// A server answers the resource server's 404 in the same envelope.
	err := mcpid.NewError(mcpid.CodeNotFound, "no ticket has the key T-17", "search tickets again")
	fmt.Println(errors.Is(err, mcpid.ErrNotFound))
	out, _ := json.Marshal(err)
	fmt.Println(string(out))
	// Output:
	// true
	// {"type":"adapter_error","code":"not_found","message":"no ticket has the key T-17","hint":"search tickets again"}
}

func ExampleHandle_UnmarshalText() {
	var req struct {
		ID mcpid.Handle `json:"id"`
	}
	err := json.Unmarshal([]byte(`{"id":"cin_4f2a/orders:o1"}`), &req)
	fmt.Println(req.ID.Stream(), err)

	err = json.Unmarshal([]byte(`{"id":"orders"}`), &req)
	fmt.Println(errors.Is(err, mcpid.ErrInvalidID))
	// Output:
	// orders <nil>
	// true
}

func ExampleMustParse() {
	// For tests and hard-coded ids only: it panics on a malformed id.
	h := mcpid.MustParse("cin_4f2a/orders:o1")
	fmt.Println(h == mcpid.MustParse("cin_4f2a/orders:o1"), h.String())
	// Output:
	// true cin_4f2a/orders:o1
}

func ExampleHandle_AppendText() {
	buf := make([]byte, 0, 64)
	for _, id := range []string{"orders:o1", "cin_4f2a/orders:o2"} {
		buf, _ = mcpid.MustParse(id).AppendText(buf)
		buf = append(buf, '\n')
	}
	fmt.Print(string(buf))
	// Output:
	// orders:o1
	// cin_4f2a/orders:o2
}

func ExampleSealer() {
	// One key, 16 bytes or more, the same on every replica; in production
	// it comes from a secret store, never from code.
	sealer, err := mcpid.NewSealer([]byte("an example key, 32 bytes long..."))
	if err != nil {
		panic(err)
	}

	// search shows sealed ids.
	shown := sealer.Seal("cin_4f2a/orders:o12")
	fmt.Println(len(shown) - len("cin_4f2a/orders:o12"))

	// fetch opens the id before anything else.
	id, err := sealer.Open(shown)
	fmt.Println(id, err)

	// A model that drifts one digit gets unknown_id, not order o13.
	drifted := strings.Replace(shown, "o12", "o13", 1)
	_, err = sealer.Open(drifted)
	fmt.Println(errors.Is(err, mcpid.ErrUnknownID))
	// Output:
	// 8
	// cin_4f2a/orders:o12 <nil>
	// true
}
