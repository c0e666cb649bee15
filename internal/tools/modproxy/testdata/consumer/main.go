// Command consumer is a program made of the go snippets of the README and
// docs/tools.md, built outside the repository against the packed modules:
// what a user who copies them gets. Its snippets stand between the lines that mark them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/pgstore"
	"github.com/mcpid/mcpid/toolname/redisstore"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

type backend struct {
	// your resource-server client
}

// Search returns hits with their own ids and connections; the tool makes
// the ids self-contained, renders the preview, and puts the same hits in
// structuredContent.
func (b *backend) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{Hits: []mcpid.Hit{
		{ID: "orders:o1", ConnectionID: "cin_4f2a", Title: "Order o1", Snippet: "3 items"},
	}}, nil
}

// Fetch gets a request already resolved and checked: read
// req.RecordPath() + "?" + req.Query().Encode(); for an opaque id (a URL, a
// key with '/'), look req.Handle.BaseID() up within req.ConnectionID, never
// as a path. Return mcpid.AmbiguousConnection(available) for a 409, an
// mcpid.NewError(mcpid.CodeNotFound, …) for a 404; any other error reaches
// the model as a generic resource_error (resource_unavailable for a
// timeout), never with its own message.
func (b *backend) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	return searchfetch.Document{Title: "Order o1", Text: "3 items, shipped to Berlin."}, nil
}

func example() error {
	// search: embed each hit's connection in its id.
	id, _ := mcpid.SelfContainedID("orders:o1", "cin_4f2a") // "cin_4f2a/orders:o1"

	// fetch: the model passes the id back, with or without connection_id.
	req, err := mcpid.ResolveFetch(id, "")
	if err != nil {
		// *mcpid.Error: return it as an MCP tool error; json.Marshal(err)
		// gives {"type":"adapter_error","code":"invalid_id",...}
	}
	// GET req.RecordPath() + "?" + req.Query().Encode()
	//   = /v1/streams/orders/records/o1?connection_id=cin_4f2a
	// and answer with the document's id set to req.EchoID.
	if got := req.RecordPath() + "?" + req.Query().Encode(); got != "/v1/streams/orders/records/o1?connection_id=cin_4f2a" {
		return fmt.Errorf("ResolveFetch: %s, %v", got, err)
	}
	return nil
}

func selfContained() {
	mcpid.SelfContainedID("orders:o1", "cin_4f2a")                    // "cin_4f2a/orders:o1", true: plain form
	mcpid.SelfContainedID("https://wiki.example.com/p/7", "cin_9b1c") // "cin_9b1c/:https://wiki.example.com/p/7", true
	mcpid.SelfContainedID("reports/2024:q3.pdf", "reports")           // "reports/:reports/2024:q3.pdf", true
	mcpid.SelfContainedID("2024:q3.pdf", "reports")                   // "reports/2024:q3.pdf", true: its neighbour
	mcpid.SelfContainedID("octo/repo#42", "projects/p1/connections/c2")
	// "projects%2Fp1%2Fconnections%2Fc2/:octo/repo#42", true
	mcpid.SelfContainedID("orders:o1", "") // "orders:o1", false: no connection
}

func sealing() error {
	key := []byte("a key of 16 bytes or more, random")
	sealer, err := mcpid.NewSealer(key) // 16+ random bytes, the same on every replica
	opts := &searchfetch.Options{Sealer: sealer}
	// search shows cin_4f2a/orders:o12~k3v9q2x; fetch of cin_4f2a/orders:o13~k3v9q2x
	// answers {"code":"unknown_id", "hint":"pass an id exactly as search showed it, or search again", ...}
	if err != nil {
		return err
	}
	_ = searchfetch.New(&backend{}, opts)
	return nil
}

func onGoSDK() {
	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1.0.0"}, nil)
	if err := gosdk.Register(server, &backend{}, nil); err != nil {
		log.Fatal(err)
	}
	_ = gosdk.NewStdioTransport(os.Stdin, os.Stdout)
}

func onMCPGo() {
	s := server.NewMCPServer("orders", "v1.0.0")
	if err := mcpgo.Register(s, &backend{}, nil); err != nil {
		log.Fatal(err) // e.g. s already has a tool named search or fetch
	}
}

// The serve functions are built, never run: they serve until the
// process ends.
func serveStdioGoSDK(ctx context.Context, server *mcp.Server) error {
	err := server.Run(ctx, gosdk.NewStdioTransport(os.Stdin, os.Stdout))
	return err
}

func serveStdioMCPGo(ctx context.Context, s *server.MCPServer) error {
	err := mcpgo.ServeStdio(ctx, s, os.Stdin, os.Stdout)
	return err
}

func serveHTTP(server *mcp.Server, s *server.MCPServer, verify func(*http.Request) (searchfetch.Caller, error)) error {
	mux := http.NewServeMux()
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"}, // the issuer of your tokens
		ScopesSupported:      []string{"mcp"},
	}))
	mux.Handle("/mcp", gosdk.NewHTTPHandler(server, &gosdk.HTTPOptions{ // or mcpgo.NewHTTPHandler(s, …)
		Verify:              verify, // checks the bearer token; the Caller it returns needs a UserID
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:              []string{"mcp"},
	}))
	hs := &http.Server{
		Addr:              "127.0.0.1:8080",
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute, // no WriteTimeout: it would cut event streams
	}
	err := hs.ListenAndServe()
	_ = mcpgo.NewHTTPHandler(s, &mcpgo.HTTPOptions{Verify: verify})
	return err
}

func gatewayNames(ctx context.Context, dir string, keys []toolname.Key, calledName string) error {
	if err := os.Chdir(dir); err != nil {
		return err
	}
	store, err := toolname.NewFileStore("names.json") // or redisstore, pgstore: one chain for every replica
	if err != nil {
		return err
	}
	defer store.Close()
	// At start and on every change of the downstream servers or their tools:
	names, _, err := toolname.Update(ctx, store, toolname.Portable, keys)
	if err != nil {
		return err // nothing new is served until a table is stored
	}
	// Route each call; the error is ambiguous_tool (with the names available) or unknown_tool.
	key, err := names.Route(calledName) // key.Server, key.Tool: the downstream and its own name
	if err != nil || key.Tool != "search" {
		return fmt.Errorf("toolname: %v, %v", key, err)
	}
	_, err = json.Marshal(names)
	return err
}

func clientError(ctx context.Context, session *mcp.ClientSession, id string) error {
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": id}})
	if err != nil {
		return err
	}
	if res.IsError {
		var e mcpid.Error // the envelope is the text of content[0]
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e); err != nil {
			return err
		}
		switch {
		case errors.Is(&e, mcpid.ErrAmbiguousConnection):
			// retry with connection_id set to one of e.Available
		case errors.Is(&e, mcpid.ErrUnknownID):
			// the id was mangled or made up: search again
		default:
			return &e // e.Code, e.Message, e.Hint: as the server sent them
		}
	}
	return nil
}

// decodeError calls the tools on the official SDK in process with an id
// that breaks the grammar, and checks that the client decodes the error.
func decodeError() error {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1.0.0"}, nil)
	if err := gosdk.Register(server, &backend{}, nil); err != nil {
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		return err
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer session.Close()
	err = clientError(ctx, session, "cin_4f2a/orders:../x")
	if !errors.Is(err, mcpid.ErrInvalidID) {
		return fmt.Errorf("decoding an error: %v", err)
	}
	return clientError(ctx, session, "cin_4f2a/orders:o1")
}

// sharedStores opens a chain on Redis and on PostgreSQL, as replicas of a
// gateway do. The consumer only builds it, proving that the stores' modules
// install: it has no server to reach.
func sharedStores(ctx context.Context, redisURL, postgresURL string) ([]toolname.Store, error) {
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, err
	}
	onRedis := redisstore.New(redis.NewClient(opts), "mcpid")
	pool, err := pgxpool.New(ctx, postgresURL)
	if err != nil {
		return nil, err
	}
	onPostgres, err := pgstore.New(ctx, pool, "mcpid")
	if err != nil {
		return nil, err
	}
	return []toolname.Store{onRedis, onPostgres}, nil
}

var _ = sharedStores

// onCallOTel returns an Options.OnCall that records every call in tp and mp.
func onCallOTel(tp trace.TracerProvider, mp metric.MeterProvider) (func(context.Context, searchfetch.Call), error) {
	const scope = "example.com/yourserver"
	meter, tracer := mp.Meter(scope), tp.Tracer(scope)
	duration, err := meter.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"))
	if err != nil {
		return nil, err
	}
	calls, err := meter.Int64Counter("mcpid.tool.calls", metric.WithUnit("{call}"))
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, c searchfetch.Call) {
		attrs := []attribute.KeyValue{attribute.String("gen_ai.tool.name", c.Tool)}
		if c.Code != "" { // the code the model saw: not_found, resource_error, …
			attrs = append(attrs, attribute.String("error.type", string(c.Code)))
		}
		ctx, span := tracer.Start(ctx, "tools/call "+c.Tool, trace.WithTimestamp(c.Start),
			trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		if !c.BackendStart.IsZero() {
			_, b := tracer.Start(ctx, "backend "+c.Tool, trace.WithTimestamp(c.BackendStart))
			b.End(trace.WithTimestamp(c.BackendStart.Add(c.Backend)))
		}
		if c.Code != "" {
			span.SetStatus(codes.Error, string(c.Code))
		}
		span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))
		duration.Record(ctx, c.Duration.Seconds(), metric.WithAttributes(attrs...))
		calls.Add(ctx, 1, metric.WithAttributes(attrs...))
	}, nil
}

// telemetry registers the tools with the OnCall of docs/tools.md, on the
// global providers (no-ops here), and makes one call that it hears.
func telemetry() error {
	// With the providers your program set up (otel.SetTracerProvider, otel.SetMeterProvider):
	onCall, err := onCallOTel(otel.GetTracerProvider(), otel.GetMeterProvider())
	if err != nil {
		return err
	}
	opts := &searchfetch.Options{OnCall: onCall}
	res := searchfetch.New(&backend{}, opts).Fetch(context.Background(), json.RawMessage(`{"id":"cin_4f2a/orders:o1"}`))
	if res.IsError {
		return fmt.Errorf("fetch with OnCall: %s", res.Text)
	}
	return nil
}

func main() {
	selfContained()
	onGoSDK()
	onMCPGo()
	for _, step := range []func() error{example, sealing, decodeError, telemetry, func() error {
		dir, err := os.MkdirTemp("", "consumer-names-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		return gatewayNames(context.Background(), dir, []toolname.Key{{Server: "docs", Tool: "search"}}, "search")
	}} {
		if err := step(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("consumer: ok")
}
