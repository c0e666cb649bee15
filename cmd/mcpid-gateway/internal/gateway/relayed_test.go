package gateway

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
	"github.com/mcpid/mcpid/toolname"
)

// docServer is a downstream on the go-sdk that serves what the gateway
// relays beyond tools, each answer naming the server: the resource
// file:///README.md, the template file:///docs/{name}, the prompt
// summarize (with an embedded file:///README.md), completions, and the
// tools link (a resource link and an embedded resource, both
// file:///README.md) and touch (an update of file:///README.md to its
// subscribers).
func docServer(name string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v0"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			what := req.Params.Ref.Name + req.Params.Ref.URI
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{name + " completes " + what}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	text := func(uri, s string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: s}}}
	}
	srv.AddResource(&mcp.Resource{URI: "file:///README.md", Name: "readme"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return text(req.Params.URI, name+"'s README"), nil
	})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///docs/{name}", Name: "docs"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return text(req.Params.URI, name+"'s "+strings.TrimPrefix(req.Params.URI, "file:///docs/")), nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "topic"}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: name + " summarizes " + req.Params.Arguments["topic"]}},
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///README.md", Text: name + "'s README"}}},
		}}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "link"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{URI: "file:///README.md", Name: "readme"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///docs/a", Text: "embedded"}},
		}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "touch"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "touched"}}}, nil, srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "file:///README.md"})
	})
	return srv
}

// relayClient connects a client to g that records the resource updates it
// gets. It speaks MCP 2025-11-25, where unsubscribing is a request that
// returns once the server has done it (on 2026-07-28 it ends a stream,
// and returns before the server hears of it).
func relayClient(t *testing.T, g *gateway) (*mcp.ClientSession, chan string) {
	updates := make(chan string, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "relay-test", Version: "v0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		},
	})
	cs, err := c.Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, updates
}

// readText reads uri and returns the text and URI of its one content.
func readText(t *testing.T, cs *mcp.ClientSession, uri string) (text, gotURI string) {
	t.Helper()
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	return res.Contents[0].Text, res.Contents[0].URI
}

// waitListed waits until cs lists n resources: a downstream's resources
// are served once it has listed them.
func waitListed(t *testing.T, cs *mcp.ClientSession, n int) []string {
	t.Helper()
	var uris []string
	require.Eventually(t, func() bool {
		uris = uris[:0]
		for r, err := range cs.Resources(t.Context(), nil) {
			if err != nil {
				return false
			}
			uris = append(uris, r.URI)
		}
		return len(uris) == n
	}, testTimeout, 10*time.Millisecond)
	slices.Sort(uris)
	return uris
}

// TestRelayTwoDownstreams: two downstreams both serve file:///README.md,
// a template, and a prompt named summarize. Through the gateway each URI
// is shown in the form that names its downstream, each prompt under its
// own name; every read, prompts/get, completion and subscription reaches
// the downstream it names, a bare URI is an error listing the forms that
// cover it, and a resource link inside a tool result is followed back to
// its downstream.
func TestRelayTwoDownstreams(t *testing.T) {
	g, _ := startGateway(t, config{},
		downstreamSpec{name: "a", transport: inProcess{docServer("a")}},
		downstreamSpec{name: "b", transport: inProcess{docServer("b")}})
	cs, updates := relayClient(t, g)

	assert.Equal(t, []string{"mcpid:a:file:///README.md", "mcpid:b:file:///README.md"}, waitListed(t, cs, 2))
	var templates []string
	for rt, err := range cs.ResourceTemplates(t.Context(), nil) {
		require.NoError(t, err)
		templates = append(templates, rt.URITemplate)
	}
	slices.Sort(templates)
	assert.Equal(t, []string{"mcpid:a:file:///docs/{name}", "mcpid:b:file:///docs/{name}"}, templates)

	for _, s := range []string{"a", "b"} {
		form := "mcpid:" + s + ":file:///README.md"
		text, uri := readText(t, cs, form)
		assert.Equal(t, s+"'s README", text)
		assert.Equal(t, form, uri, "the contents' URI is in the form")
		text, _ = readText(t, cs, "mcpid:"+s+":file:///docs/guide")
		assert.Equal(t, s+"'s guide", text, "a template's form expands to its downstream's URIs")
	}

	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///README.md"})
	require.Error(t, err, "a bare URI with several downstreams is never a guess")
	assert.Contains(t, err.Error(), "mcpid:a:file:///README.md, mcpid:b:file:///README.md")
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///docs/x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcpid:a:file:///docs/x, mcpid:b:file:///docs/x", "a template covers a bare URI")
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "mcpid:c:file:///README.md"})
	require.Error(t, err, "a form that names no downstream")

	var prompts []string
	for p, err := range cs.Prompts(t.Context(), nil) {
		require.NoError(t, err)
		prompts = append(prompts, p.Name)
	}
	assert.Equal(t, []string{"a__summarize", "b__summarize"}, prompts, "a collision is qualified, as tool names are")
	for _, s := range []string{"a", "b"} {
		res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: s + "__summarize", Arguments: map[string]string{"topic": "names"}})
		require.NoError(t, err)
		require.Len(t, res.Messages, 2)
		assert.Equal(t, s+" summarizes names", res.Messages[0].Content.(*mcp.TextContent).Text)
		assert.Equal(t, "mcpid:"+s+":file:///README.md", res.Messages[1].Content.(*mcp.EmbeddedResource).Resource.URI)

		done, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: s + "__summarize"}, Argument: mcp.CompleteParamsArgument{Name: "topic", Value: "n"}})
		require.NoError(t, err)
		assert.Equal(t, []string{s + " completes summarize"}, done.Completion.Values)
		done, err = cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "mcpid:" + s + ":file:///docs/{name}"}, Argument: mcp.CompleteParamsArgument{Name: "name", Value: "g"}})
		require.NoError(t, err)
		assert.Equal(t, []string{s + " completes file:///docs/{name}"}, done.Completion.Values)

		res2, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s + "__link", Arguments: map[string]any{}})
		require.NoError(t, err)
		require.Len(t, res2.Content, 2)
		link := res2.Content[0].(*mcp.ResourceLink).URI
		assert.Equal(t, "mcpid:"+s+":file:///README.md", link)
		assert.Equal(t, "mcpid:"+s+":file:///docs/a", res2.Content[1].(*mcp.EmbeddedResource).Resource.URI)
		text, _ := readText(t, cs, link)
		assert.Equal(t, s+"'s README", text, "a link in a tool result is followed back to its downstream")
	}

	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "mcpid:b:file:///README.md"}))
	// A downstream on MCP 2026-07-28 opens its subscription stream in
	// the background: touch until an update comes.
	touch := func(s string) {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s + "__touch", Arguments: map[string]any{}})
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		touch("a")
		touch("b")
		select {
		case uri := <-updates:
			require.Equal(t, "mcpid:b:file:///README.md", uri, "only the resource subscribed to, in its form")
			return true
		case <-time.After(20 * time.Millisecond):
			return false
		}
	}, testTimeout, time.Millisecond)
	require.NoError(t, cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: "mcpid:b:file:///README.md"}))
	// Whatever the downstream still sends goes to no one once the
	// caller unsubscribed.
	time.Sleep(50 * time.Millisecond)
	for len(updates) > 0 {
		<-updates
	}
	touch("b")
	require.NoError(t, cs.Ping(t.Context(), nil))
	select {
	case uri := <-updates:
		t.Fatalf("an update after unsubscribing: %s", uri)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestRelayOneDownstream: with one downstream, every URI is shown as it
// wrote it, and a prompt keeps its own name.
func TestRelayOneDownstream(t *testing.T) {
	g, _ := startGateway(t, config{}, downstreamSpec{name: "a", transport: inProcess{docServer("a")}})
	cs, _ := relayClient(t, g)
	assert.Equal(t, []string{"file:///README.md"}, waitListed(t, cs, 1))
	text, uri := readText(t, cs, "file:///README.md")
	assert.Equal(t, "a's README", text)
	assert.Equal(t, "file:///README.md", uri)
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "x"}})
	require.NoError(t, err)
	assert.Equal(t, "file:///README.md", res.Messages[1].Content.(*mcp.EmbeddedResource).Resource.URI)
	link, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "link", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "file:///README.md", link.Content[0].(*mcp.ResourceLink).URI)
}

// TestRelayListChanged: a resource or prompt a downstream adds while the
// gateway runs is listed through it (the downstream's list_changed, the
// gateway's relist, the gateway's own list_changed), and one it removes
// is no longer listed.
func TestRelayListChanged(t *testing.T) {
	a := docServer("a")
	g, _ := startGateway(t, config{},
		downstreamSpec{name: "a", transport: inProcess{a}},
		downstreamSpec{name: "b", transport: inProcess{docServer("b")}})
	cs, _ := relayClient(t, g)
	waitListed(t, cs, 2)
	a.AddResource(&mcp.Resource{URI: "file:///NEWS.md", Name: "news"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "news"}}}, nil
	})
	a.AddPrompt(&mcp.Prompt{Name: "draft"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "a drafts"}}}}, nil
	})
	assert.Contains(t, waitListed(t, cs, 3), "mcpid:a:file:///NEWS.md")
	text, _ := readText(t, cs, "mcpid:a:file:///NEWS.md")
	assert.Equal(t, "news", text)
	require.Eventually(t, func() bool {
		res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "draft"})
		return err == nil && res.Messages[0].Content.(*mcp.TextContent).Text == "a drafts"
	}, testTimeout, 10*time.Millisecond, "a prompt no other server has keeps its name")
	a.RemoveResources("file:///NEWS.md")
	assert.NotContains(t, waitListed(t, cs, 2), "mcpid:a:file:///NEWS.md")
}

// TestSubscribeFormAnyCase: a subscription to a form whose scheme is
// written in another case (which routes, as a URI's scheme is compared)
// gets the updates, which go out in the form as the gateway writes it;
// unsubscribing in yet another case ends them.
func TestSubscribeFormAnyCase(t *testing.T) {
	g, _ := startGateway(t, config{},
		downstreamSpec{name: "a", transport: inProcess{docServer("a")}},
		downstreamSpec{name: "b", transport: inProcess{docServer("b")}})
	cs, updates := relayClient(t, g)
	waitListed(t, cs, 2)
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "MCPID:b:file:///README.md"}))
	require.Eventually(t, func() bool {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "b__touch", Arguments: map[string]any{}})
		require.NoError(t, err)
		select {
		case uri := <-updates:
			require.Equal(t, "mcpid:b:file:///README.md", uri)
			return true
		case <-time.After(20 * time.Millisecond):
			return false
		}
	}, testTimeout, time.Millisecond, "the update reaches the subscriber")
	require.NoError(t, cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: "Mcpid:b:file:///README.md"}))
	time.Sleep(50 * time.Millisecond)
	for len(updates) > 0 {
		<-updates
	}
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "b__touch", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.NoError(t, cs.Ping(t.Context(), nil))
	select {
	case uri := <-updates:
		t.Fatalf("an update after unsubscribing: %s", uri)
	case <-time.After(100 * time.Millisecond):
	}
}

// testDocServerEnv is the variable that makes the test binary a go-sdk
// downstream over stdio (see docServer), named by its value.
const testDocServerEnv = "GATEWAY_TEST_DOCSERVER"

// TestRelayReplicas: three gateway processes share one Redis store, each
// over two downstream processes of its own that both serve
// file:///README.md and a prompt named summarize. Every replica lists the
// same prompt names, which the chain "<chain>/prompts" holds, and on every
// replica each prompt name, each URI form and each link in a tool result
// (followed on another replica) reaches the downstream it was listed for.
func TestRelayReplicas(t *testing.T) {
	srv := dbserver.StartRedis(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	var sessions [3]*mcp.ClientSession
	for i := range sessions {
		args := []string{"-stdio", "-state", srv.URL, "-chain", "relay",
			"-backup", filepath.Join(dir, fmt.Sprintf("r%d-backup.json", i)), "-timeout", "10s", "-start-timeout", "2s"}
		for _, s := range []string{"a", "b"} {
			args = append(args, "-server", s+"='"+exe+"'", "-env", s+"="+testDocServerEnv+"="+s)
		}
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
		stderr := new(syncbuf.Buffer)
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "relay-replicas", Version: "v0"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = cs.Close()
			if t.Failed() {
				t.Logf("replica %d's log:\n%s", i, stderr.String())
			}
		})
		sessions[i] = cs
	}

	// Each replica lists both prompts, under names every replica agrees on.
	server := map[string]string{} // prompt name -> the downstream it reached on the first replica
	for i, cs := range sessions {
		var names []string
		require.Eventually(t, func() bool {
			names = names[:0]
			for p, err := range cs.Prompts(t.Context(), nil) {
				if err != nil {
					return false
				}
				names = append(names, p.Name)
			}
			return len(names) == 2
		}, testTimeout, 20*time.Millisecond, "replica %d lists %v", i, &names)
		for _, name := range names {
			res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"topic": "x"}})
			require.NoError(t, err)
			who, _, _ := strings.Cut(res.Messages[0].Content.(*mcp.TextContent).Text, " ")
			if prev, ok := server[name]; ok {
				assert.Equal(t, prev, who, "replica %d routes %q to another downstream", i, name)
			}
			server[name] = who
		}
	}
	whos := []string{}
	for _, who := range server {
		whos = append(whos, who)
	}
	slices.Sort(whos)
	assert.Equal(t, []string{"a", "b"}, whos, "one name per downstream's prompt: %v", server)

	stored, _, err := openRedis(t, srv.URL, "relay/prompts").Load(t.Context())
	require.NoError(t, err)
	for name, who := range server {
		k, err := stored.Route(name)
		require.NoError(t, err)
		assert.Equal(t, toolname.Key{Server: who, Tool: "summarize"}, k)
	}

	// Every prompt name, URI form and link, on every replica.
	for i, cs := range sessions {
		for name, who := range server {
			res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"topic": "y"}})
			require.NoError(t, err)
			assert.Equal(t, who+" summarizes y", res.Messages[0].Content.(*mcp.TextContent).Text, "replica %d, prompt %q", i, name)
			assert.Equal(t, "mcpid:"+who+":file:///README.md", res.Messages[1].Content.(*mcp.EmbeddedResource).Resource.URI)
		}
		for _, s := range []string{"a", "b"} {
			text, _ := readText(t, cs, "mcpid:"+s+":file:///README.md")
			assert.Equal(t, s+"'s README", text, "replica %d", i)
			text, _ = readText(t, cs, "mcpid:"+s+":file:///docs/guide")
			assert.Equal(t, s+"'s guide", text, "replica %d", i)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s + "__link", Arguments: map[string]any{}})
			require.NoError(t, err)
			link := res.Content[0].(*mcp.ResourceLink).URI
			// Followed on the next replica.
			text, _ = readText(t, sessions[(i+1)%len(sessions)], link)
			assert.Equal(t, s+"'s README", text, "a link from replica %d", i)
		}
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///README.md"})
		require.Error(t, err)
	}
}

// BenchmarkRelayKinds measures what the gateway adds to a prompts/get and
// a resources/read: the same request to the same in-process server, made
// directly and through the gateway (two downstreams, so the URI is a
// form), side by side in one run.
func BenchmarkRelayKinds(b *testing.B) {
	a := downstreamSpec{name: "a", transport: inProcess{docServer("a")}}
	g, _ := startGateway(b, config{}, a, downstreamSpec{name: "b", transport: inProcess{docServer("b")}})
	for _, bc := range []struct {
		name        string
		to          mcp.Transport
		prompt, uri string
	}{
		{"direct", a.transport, "summarize", "file:///README.md"},
		{"gateway", inProcess{g.srv}, "a__summarize", "mcpid:a:file:///README.md"},
	} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), bc.to, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		for _, op := range []struct {
			name string
			do   func(context.Context) error
		}{
			{"prompts-get", func(ctx context.Context) error {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: bc.prompt, Arguments: map[string]string{"topic": "t"}})
				return err
			}},
			{"resources-read", func(ctx context.Context) error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bc.uri})
				return err
			}},
		} {
			b.Run(op.name+"/"+bc.name, func(b *testing.B) {
				// The first prompts/list waits for the prompts' first
				// naming round.
				for _, err := range cs.Prompts(b.Context(), nil) {
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := op.do(b.Context()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
