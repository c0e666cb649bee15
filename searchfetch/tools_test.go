package searchfetch_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/mcpid/mcpid/internal/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestToolDefinitions pins the input schemas of both modes: ChatGPT's
// contract checks them exactly.
func TestToolDefinitions(t *testing.T) {
	tests := []struct {
		mode          searchfetch.Mode
		search, fetch string
	}{
		{
			searchfetch.ModeDefault,
			`{"type":"object","properties":{"query":{"type":"string","description":"What to look for across every connected source."}},"required":["query"],"additionalProperties":false}`,
			`{"type":"object","properties":{"id":{"type":"string","description":"An id exactly as search showed it."},"connection_id":{"type":"string","description":"Only where search showed a connection_id next to the id, or an ambiguous_connection error asks for one."}},"required":["id"],"additionalProperties":false}`,
		},
		{
			searchfetch.ModeChatGPT,
			`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`,
			`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			tools := searchfetch.New(&recorder{}, &searchfetch.Options{Mode: tt.mode})
			for _, c := range []struct {
				tool   searchfetch.Tool
				name   string
				schema string
			}{{tools.SearchTool(), searchfetch.SearchName, tt.search}, {tools.FetchTool(), searchfetch.FetchName, tt.fetch}} {
				assert.Equal(t, c.name, c.tool.Name)
				assert.True(t, c.tool.ReadOnly, "%s is read-only", c.name)
				assert.NotEmpty(t, c.tool.Description)
				if diff := cmp.Diff(c.schema, string(c.tool.InputSchema)); diff != "" {
					t.Errorf("%s schema (-want +got):\n%s", c.name, diff)
				}
			}
		})
	}
}

// TestDescriptions: a server's own descriptions replace the defaults.
func TestDescriptions(t *testing.T) {
	def := searchfetch.New(&recorder{}, nil)
	own := searchfetch.New(&recorder{}, &searchfetch.Options{SearchDescription: "Search Acme's orders."})
	assert.Equal(t, "Search Acme's orders.", own.SearchTool().Description)
	assert.Equal(t, def.FetchTool().Description, own.FetchTool().Description)
	assert.NotEqual(t, def.SearchTool().Description, own.SearchTool().Description)
}

// TestNewNilBackend: a server without a backend is a programming error.
func TestNewNilBackend(t *testing.T) {
	assert.PanicsWithValue(t, "searchfetch: New with a nil Backend", func() { searchfetch.New(nil, nil) })
}

// TestConcurrentCalls: Tools is safe for concurrent use (run with -race).
func TestConcurrentCalls(t *testing.T) {
	b := &adaptertest.Backend{}
	tools := searchfetch.New(b, nil)
	const workers, calls = 8, 20
	var wg sync.WaitGroup
	errs := make(chan string, workers*calls*2)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if res := tools.Search(context.Background(), []byte(`{"query":"q"}`)); res.IsError {
					errs <- res.Text
				}
				if res := tools.Fetch(context.Background(), []byte(`{"id":"c1/orders:o1"}`)); res.IsError {
					errs <- res.Text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	assert.Equal(t, int64(workers*calls), b.Searches())
	assert.Equal(t, int64(workers*calls), b.Fetches())
}
