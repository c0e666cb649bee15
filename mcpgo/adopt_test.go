package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// This file ports a server shaped like a Grafana MCP server onto the
// tools: two Grafana instances, "prod" (the default) and "staging", that
// both hold the dashboard rYdddlPWk; the tools search_dashboards{query,
// limit, page} and get_dashboard_by_uid{uid} it had; and a tool of its
// own, get_dashboard_summary{uid}, that reads the dashboard an id names.
// The port is the block between "port:" and "end of port"; the rest is a
// fake of Grafana's HTTP API and the checks that every call that worked
// before the port still works.

// port: a server's search and read tools on mcpid, as its maintainer
// writes them.

// grafana is the server's backend over its Grafana instances, by name.
type grafana struct {
	instances map[string]string // name: base URL
	order     []string          // the instances search reads, in order
	client    *http.Client
	// authorize says whether the caller may read an instance, for the
	// tools and for search, which reads only those, so that its counts
	// and cursor are the caller's.
	authorize func(context.Context, searchfetch.Access) error
}

// searchArgs are search_dashboards' arguments besides its query.
type searchArgs struct {
	Limit int `json:"limit"`
	Page  int `json:"page"`
}

// Search reads one page of Grafana's search: the one the model asked for
// with page and limit, in the default instance; otherwise page by page,
// each as large as the tools show, through every instance.
func (g *grafana) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	var a searchArgs
	if err := q.Args.Decode(&a); err != nil || a.Limit < 0 || a.Page < 0 {
		return searchfetch.SearchResult{}, mcpid.NewError(searchfetch.CodeInvalidArguments, "limit and page must be positive integers", "omit them, or pass positive integers")
	}
	readable := slices.DeleteFunc(slices.Clone(g.order), func(name string) bool {
		return g.authorize(ctx, searchfetch.Access{Tool: "search_dashboards", ConnectionID: name}) != nil
	})
	if len(readable) == 0 {
		return searchfetch.SearchResult{CountsForCaller: true}, nil
	}
	instance, page, limit := readable[0], max(a.Page, 1), q.Limit
	if a.Limit > 0 {
		limit = a.Limit
	}
	if q.Cursor != "" {
		name, n, _ := strings.Cut(q.Cursor, "/")
		p, err := strconv.Atoi(n)
		if !slices.Contains(readable, name) || err != nil || p < 1 {
			return searchfetch.SearchResult{}, mcpid.NewError(searchfetch.CodeInvalidArguments, "the cursor is not one search gave", "search again")
		}
		instance, page = name, p
	}
	var found []struct{ UID, Title, URL string }
	u := fmt.Sprintf("%s/api/search?query=%s&limit=%d&page=%d", g.instances[instance], url.QueryEscape(q.Text), limit, page)
	if err := g.get(ctx, u, &found); err != nil {
		return searchfetch.SearchResult{}, err
	}
	res := searchfetch.SearchResult{CountsForCaller: true}
	for _, d := range found {
		res.Hits = append(res.Hits, mcpid.Hit{ID: d.UID, ConnectionID: instance, Title: d.Title})
	}
	if a.Page > 0 || a.Limit > 0 {
		return res, nil // the model pages itself, as before
	}
	if len(found) == limit {
		res.NextCursor = instance + "/" + strconv.Itoa(page+1)
	} else if i := slices.Index(readable, instance); i+1 < len(readable) {
		res.NextCursor = readable[i+1] + "/1"
	}
	return res, nil
}

// Fetch reads the dashboard whose uid the request names, in its instance.
func (g *grafana) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	d, err := g.dashboard(ctx, req.FetchRequest)
	if err != nil {
		return searchfetch.Document{}, err
	}
	text, _ := json.Marshal(d)
	return searchfetch.Document{Title: d.Title, Text: string(text), URL: d.URL}, nil
}

// dashboard is a dashboard as Grafana returns it.
type dashboard struct {
	UID, Title, URL string
	Panels          []string
}

// dashboard reads the dashboard req names.
func (g *grafana) dashboard(ctx context.Context, req mcpid.FetchRequest) (dashboard, error) {
	base, ok := g.instances[req.ConnectionID]
	if !ok {
		return dashboard{}, mcpid.AmbiguousConnection(g.order)
	}
	var d dashboard
	err := g.get(ctx, base+"/api/dashboards/uid/"+url.PathEscape(req.Handle.BaseID()), &d)
	return d, err
}

// get reads the JSON at u into v; a 404 is not_found.
func (g *grafana) get(ctx context.Context, u string, v any) error {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := g.client.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return json.NewDecoder(resp.Body).Decode(v)
	case http.StatusNotFound:
		return mcpid.NewError(mcpid.CodeNotFound, "no dashboard with that uid", "search_dashboards again")
	}
	return fmt.Errorf("grafana: %s", resp.Status)
}

// addGrafanaTools adds the server's tools over g to s, with their names,
// descriptions and arguments as they were.
func addGrafanaTools(s *server.MCPServer, g *grafana) error {
	tools := searchfetch.New(g, &searchfetch.Options{
		SearchName:        "search_dashboards",
		FetchName:         "get_dashboard_by_uid",
		SearchDescription: "Search for Grafana dashboards by a query string.",
		FetchDescription:  "Retrieves the complete dashboard for a specific dashboard identified by its UID.",
		IDArg:             "uid",
		SearchArgs:        json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"The query to search for"},"limit":{"type":"integer","minimum":1},"page":{"type":"integer","minimum":1}}}`),
		FetchArgs:         json.RawMessage(`{"type":"object","properties":{"uid":{"description":"The UID of the dashboard"}}}`),
		BareIDs:           true,
		DefaultConnection: g.order[0],
		Preview:           mcpid.PreviewOptions{MaxHits: 10},
		Authorize:         g.authorize,
	})
	if err := mcpgo.AddTools(s, tools); err != nil {
		return err
	}
	summary := mcp.NewTool("get_dashboard_summary", mcp.WithDescription("A dashboard's title and panels."),
		mcp.WithString("uid", mcp.Required(), mcp.Description("The UID of the dashboard")))
	s.AddTool(summary, func(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req, err := tools.Resolve(mcpgo.CallerContext(ctx), "get_dashboard_summary", call.GetString("uid", ""), "")
		if err != nil {
			return mcpgo.ToolError(err), nil
		}
		d, err := g.dashboard(ctx, req)
		if err != nil {
			return mcpgo.ToolError(err), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("%s: %d panels", d.Title, len(d.Panels))), nil
	})
	return nil
}

// end of port.

// grafanaAPI is a fake of one Grafana instance's HTTP API: its search,
// paged by page and limit, and its dashboards by uid. It counts the
// requests it serves, by request URI.
type grafanaAPI struct {
	name       string
	dashboards []dashboard // in the order search returns them

	mu    sync.Mutex
	calls map[string]int
}

func (a *grafanaAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.calls[r.URL.RequestURI()]++
	a.mu.Unlock()
	if uid, ok := strings.CutPrefix(r.URL.Path, "/api/dashboards/uid/"); ok {
		for _, d := range a.dashboards {
			if d.UID == uid {
				_ = json.NewEncoder(w).Encode(d)
				return
			}
		}
		http.NotFound(w, r)
		return
	}
	query := strings.ToLower(r.URL.Query().Get("query"))
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	var found []dashboard
	for _, d := range a.dashboards {
		if strings.Contains(strings.ToLower(d.Title), query) {
			found = append(found, d)
		}
	}
	lo := min(len(found), max(page-1, 0)*limit)
	_ = json.NewEncoder(w).Encode(found[lo:min(len(found), lo+limit)])
}

// searches returns the search requests a served, each with its count.
func (a *grafanaAPI) searches() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]int{}
	for uri, n := range a.calls {
		if strings.HasPrefix(uri, "/api/search") {
			out[uri] = n
		}
	}
	return out
}

// newGrafanaAPI returns the API of an instance named name holding n CPU
// dashboards, the first of them rYdddlPWk, and one other.
func newGrafanaAPI(name string, n int) *grafanaAPI {
	a := &grafanaAPI{name: name, calls: map[string]int{}}
	a.dashboards = append(a.dashboards, dashboard{UID: "rYdddlPWk", Title: "CPU usage (" + name + ")", URL: "/d/rYdddlPWk", Panels: []string{"cpu", "load"}})
	for i := 1; i < n; i++ {
		uid := fmt.Sprintf("%s-cpu-%02d", name, i)
		a.dashboards = append(a.dashboards, dashboard{UID: uid, Title: fmt.Sprintf("CPU node %02d", i), URL: "/d/" + uid, Panels: []string{"cpu"}})
	}
	a.dashboards = append(a.dashboards, dashboard{UID: name + "-mem", Title: "Memory", URL: "/d/" + name + "-mem"})
	return a
}

// TestGrafanaPort: every call shape that worked before the port still
// works ({uid}, {query, limit}, {query, page}, a bare uid alone and with
// connection_id), the ids search shows fetch from their own instance, in
// get_dashboard_by_uid and in the server's own get_dashboard_summary,
// and paging reads each Grafana page once.
func TestGrafanaPort(t *testing.T) {
	apis := map[string]*grafanaAPI{"prod": newGrafanaAPI("prod", 23), "staging": newGrafanaAPI("staging", 8)}
	var mu sync.Mutex
	var asked []string // tool, connection and caller of each authorization
	authorize := func(ctx context.Context, a searchfetch.Access) error {
		c, _ := searchfetch.CallerFrom(ctx)
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, a.Tool+" "+a.ConnectionID+" "+c.UserID)
		return nil
	}
	g := &grafana{instances: map[string]string{}, order: []string{"prod", "staging"}, client: http.DefaultClient, authorize: authorize}
	for name, api := range apis {
		srv := httptest.NewServer(api)
		t.Cleanup(srv.Close)
		g.instances[name] = srv.URL
	}
	s := server.NewMCPServer("grafana", "v0.0.1")
	require.NoError(t, addGrafanaTools(s, g))
	c := callerClient{mcpClient{c: connectTo(t, s)}, searchfetch.Caller{UserID: "ana"}}
	call := func(name string, args map[string]any) (string, bool) {
		a := c.Call(t, name, args)
		require.Len(t, a.Texts, 1)
		return a.Texts[0], a.IsError
	}
	fetch := func(args map[string]any) dashboard {
		t.Helper()
		text, isErr := call("get_dashboard_by_uid", args)
		require.False(t, isErr, text)
		var doc searchfetch.Document
		require.NoError(t, json.Unmarshal([]byte(text), &doc))
		var d dashboard
		require.NoError(t, json.Unmarshal([]byte(doc.Text), &d))
		return d
	}

	t.Run("{uid}, a bare uid alone", func(t *testing.T) {
		assert.Equal(t, "CPU usage (prod)", fetch(map[string]any{"uid": "rYdddlPWk"}).Title)
	})
	t.Run("a bare uid with connection_id", func(t *testing.T) {
		assert.Equal(t, "CPU usage (staging)", fetch(map[string]any{"uid": "rYdddlPWk", "connection_id": "staging"}).Title)
	})
	t.Run("{query, limit}", func(t *testing.T) {
		text, isErr := call("search_dashboards", map[string]any{"query": "cpu", "limit": 5})
		require.False(t, isErr, text)
		assert.Equal(t, []string{"prod/:rYdddlPWk", "prod/:prod-cpu-01", "prod/:prod-cpu-02", "prod/:prod-cpu-03", "prod/:prod-cpu-04"}, mcpid.ExtractIDs(text))
		assert.Equal(t, 1, apis["prod"].searches()["/api/search?query=cpu&limit=5&page=1"])
	})
	t.Run("{query, page}", func(t *testing.T) {
		text, isErr := call("search_dashboards", map[string]any{"query": "cpu", "page": 3})
		require.False(t, isErr, text)
		assert.Equal(t, []string{"prod/:prod-cpu-20", "prod/:prod-cpu-21", "prod/:prod-cpu-22"}, mcpid.ExtractIDs(text))
	})
	t.Run("a bad limit", func(t *testing.T) {
		text, isErr := call("search_dashboards", map[string]any{"query": "cpu", "limit": "ten"})
		require.True(t, isErr)
		var e mcpid.Error
		require.NoError(t, json.Unmarshal([]byte(text), &e))
		assert.Equal(t, searchfetch.CodeInvalidArguments, e.Code)
		assert.Equal(t, "limit", e.Field)
	})

	for _, api := range apis {
		api.mu.Lock()
		clear(api.calls)
		api.mu.Unlock()
	}
	var shown []string
	args := map[string]any{"query": "cpu"}
	for range 10 {
		text, isErr := call("search_dashboards", args)
		require.False(t, isErr, text)
		shown = append(shown, mcpid.ExtractIDs(text)...)
		i := strings.LastIndex(text, "cursor=")
		if i < 0 {
			break
		}
		var cursor string
		require.NoError(t, json.Unmarshal([]byte(strings.TrimSuffix(text[i+len("cursor="):], ".")), &cursor))
		args = map[string]any{"query": "cpu", "cursor": cursor}
	}
	t.Run("paging reads each Grafana page once", func(t *testing.T) {
		assert.Len(t, shown, 31)
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(shown))), 31, "each id once")
		assert.Equal(t, map[string]int{"/api/search?query=cpu&limit=10&page=1": 1, "/api/search?query=cpu&limit=10&page=2": 1, "/api/search?query=cpu&limit=10&page=3": 1}, apis["prod"].searches())
		assert.Equal(t, map[string]int{"/api/search?query=cpu&limit=10&page=1": 1}, apis["staging"].searches())
	})
	t.Run("the ids search shows fetch their own instance", func(t *testing.T) {
		require.Contains(t, shown, "staging/:rYdddlPWk")
		require.Contains(t, shown, "prod/:rYdddlPWk")
		assert.Equal(t, "CPU usage (staging)", fetch(map[string]any{"uid": "staging/:rYdddlPWk"}).Title)
		assert.Equal(t, "CPU usage (prod)", fetch(map[string]any{"uid": "prod/:rYdddlPWk"}).Title)
	})
	t.Run("the server's own tool reads the instance a shown id names", func(t *testing.T) {
		mu.Lock()
		asked = nil
		mu.Unlock()
		text, isErr := call("get_dashboard_summary", map[string]any{"uid": "staging/:rYdddlPWk"})
		require.False(t, isErr, text)
		assert.Equal(t, "CPU usage (staging): 2 panels", text)
		text, isErr = call("get_dashboard_summary", map[string]any{"uid": "rYdddlPWk"})
		require.False(t, isErr, text)
		assert.Equal(t, "CPU usage (prod): 2 panels", text)
		text, isErr = call("get_dashboard_summary", map[string]any{"uid": "staging/:nope"})
		require.True(t, isErr, text)
		assert.Contains(t, text, `"code":"not_found"`)
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, []string{"get_dashboard_summary staging ana", "get_dashboard_summary prod ana", "get_dashboard_summary staging ana"}, asked)
	})
}
