package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/serve"
)

// TestMain runs the test binary as a downstream MCP server when
// testServerEnv says how (see runTestServer), and as the tests otherwise.
func TestMain(m *testing.M) {
	if mode := os.Getenv(testServerEnv); mode != "" {
		os.Exit(runTestServer(mode, os.Stdin, os.Stdout))
	}
	if name := os.Getenv(testDocServerEnv); name != "" {
		// A go-sdk downstream over stdio (see docServer).
		if err := docServer(name).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(testGatewayEnv) != "" {
		// A gateway process, as the replica tests start them, run as
		// main.go runs it (signals included): the arguments are the
		// gateway's.
		serve.Main("gateway", func(ctx context.Context) error {
			return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testGatewayEnv is the variable that makes the test binary a gateway.
const testGatewayEnv = "GATEWAY_TEST_GATEWAY"

// testServerEnv is the variable that makes the test binary a downstream.
const testServerEnv = "GATEWAY_TEST_SERVER"

// testServer returns the -server value and the -env value that run this
// test binary as a downstream named name, behaving as mode says: a
// comma-separated list of
//
//	tools=a+b    the tools it lists (default: search)
//	hang         on tools/call, stop reading stdin for good
//	garbage      print three lines that are not JSON-RPC messages at
//	             start, and one before each message
//	die          on tools/call, exit
//	restart=FILE count its starts in FILE: the first start serves
//	             and dies on its first call; the second waits a while and
//	             exits before answering; the third lists one more tool, "extra"
//	storm        every 20 ms, list 1,000 new tools and say so
//	env          a call answers with the environment, one KEY=VALUE a line
//	progress     a call sends two progress notifications and a log
//	             message before it answers
//	silent       never answer initialize
//	toolsfile=F  list the tools named in file F, one a line, read again
//	             every 20 ms: a change is told with tools/list_changed
//	who=NAME     a call answers "NAME answered TOOL"
//	delay=D      wait for the duration D before answering initialize
//	lifetime=D   exit D after it started, as a server that crashes does
//	logs         a call sends four log messages, one at each of the levels
//	             debug, info, warning and error, before it answers, whether
//	             or not its client set a level, as many servers do
//	slow=D       answer each call D after it came, calls overlapping
func testServer(t *testing.T, name, mode string) (server, env string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return name + "='" + exe + "'", name + "=" + testServerEnv + "=" + mode
}

// runTestServer is a downstream MCP server that speaks newline-delimited
// JSON-RPC by hand, so that it can misbehave in ways an SDK would not let
// it.
func runTestServer(mode string, in io.Reader, out io.Writer) int {
	s := &testServerState{out: bufio.NewWriter(out), tools: []string{"search"}}
	for _, opt := range strings.Split(mode, ",") {
		k, v, _ := strings.Cut(opt, "=")
		switch k {
		case "tools":
			s.tools = strings.Split(v, "+")
		case "restart":
			s.restarts = v
		case "toolsfile":
			s.toolsFile = v
			s.tools = readToolsFile(v)
		case "who":
			s.who = v
		case "delay":
			d, err := time.ParseDuration(v)
			if err != nil {
				return 2
			}
			time.Sleep(d)
		case "slow":
			d, err := time.ParseDuration(v)
			if err != nil {
				return 2
			}
			s.slow = d
		case "lifetime":
			d, err := time.ParseDuration(v)
			if err != nil {
				return 2
			}
			time.AfterFunc(d, func() { os.Exit(0) })
		default:
			s.flags = append(s.flags, k)
		}
	}
	if s.restarts != "" {
		data, _ := os.ReadFile(s.restarts)
		start := len(data) + 1
		_ = os.WriteFile(s.restarts, []byte(strings.Repeat("x", start)), 0o600)
		switch start {
		case 1:
			s.flags = append(s.flags, "die")
		case 2:
			time.Sleep(2 * time.Second)
			return 1
		default:
			s.tools = append(s.tools, "extra")
		}
	}
	if s.has("garbage") {
		s.out.WriteString("starting up: not JSON\n[1,2\n{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}\n")
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Name            string `json:"name"`
				Meta            struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil {
			continue
		}
		if code := s.handle(req.ID, req.Method, req.Params.ProtocolVersion, req.Params.Name, req.Params.Meta.ProgressToken); code >= 0 {
			return code
		}
	}
	return 0
}

type testServerState struct {
	mu        sync.Mutex // guards out and tools: storm writes too
	out       *bufio.Writer
	tools     []string
	flags     []string
	restarts  string
	toolsFile string
	who       string // the name a call answers with; "test" by default
	slow      time.Duration
}

// readToolsFile returns the tool names in the file at path, one a line.
func readToolsFile(path string) []string {
	data, _ := os.ReadFile(path)
	return strings.Fields(string(data))
}

// followToolsFile reads the tools file again every 20 ms, and tells the
// client when they changed.
func (s *testServerState) followToolsFile() {
	for {
		time.Sleep(20 * time.Millisecond)
		tools := readToolsFile(s.toolsFile)
		s.mu.Lock()
		same := slices.Equal(tools, s.tools)
		s.tools = tools
		s.mu.Unlock()
		if !same {
			s.notify("notifications/tools/list_changed", map[string]any{})
		}
	}
}

func (s *testServerState) has(flag string) bool {
	for _, f := range s.flags {
		if f == flag {
			return true
		}
	}
	return false
}

// send writes one message.
func (s *testServerState) send(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.has("garbage") {
		s.out.WriteString("garbage: not JSON\n")
	}
	data, _ := json.Marshal(v)
	s.out.Write(append(data, '\n'))
	s.out.Flush()
}

func (s *testServerState) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *testServerState) notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func toolList(names []string) []map[string]any {
	var tools []map[string]any
	for _, n := range names {
		tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
	}
	return tools
}

// handle answers one message, and returns an exit code to stop with, or
// -1 to go on.
func (s *testServerState) handle(id json.RawMessage, method, version, tool string, progress any) int {
	switch method {
	case "initialize":
		if s.has("silent") {
			select {}
		}
		s.reply(id, map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}},
			"serverInfo":      map[string]any{"name": "test", "version": "v0"},
		})
	case "notifications/initialized":
		if s.has("storm") {
			go s.storm()
		}
		if s.toolsFile != "" {
			go s.followToolsFile()
		}
	case "tools/list":
		s.mu.Lock()
		tools := toolList(s.tools)
		s.mu.Unlock()
		s.reply(id, map[string]any{"tools": tools})
	case "tools/call":
		return s.call(id, tool, progress)
	default:
		if len(id) > 0 {
			s.reply(id, map[string]any{})
		}
	}
	return -1
}

func (s *testServerState) call(id json.RawMessage, tool string, progress any) int {
	switch {
	case s.has("hang"):
		select {}
	case s.has("die"):
		return 3
	}
	who := "test"
	if s.who != "" {
		who = s.who
	}
	text := who + " answered " + tool
	if s.has("env") {
		text = strings.Join(os.Environ(), "\n")
	}
	if s.has("progress") && progress != nil {
		for i := 1; i <= 2; i++ {
			s.notify("notifications/progress", map[string]any{"progressToken": progress, "progress": i, "total": 2})
		}
		s.notify("notifications/message", map[string]any{"level": "info", "logger": "test", "data": "working on " + tool})
	}
	if s.has("logs") {
		for _, level := range testLogLevels {
			s.notify("notifications/message", map[string]any{"level": level, "logger": "test", "data": level + " from " + tool})
		}
	}
	result := map[string]any{"content": []map[string]any{{"type": "text", "text": text}}}
	if s.slow > 0 {
		time.AfterFunc(s.slow, func() { s.reply(id, result) })
		return -1
	}
	s.reply(id, result)
	return -1
}

// testLogLevels are the levels of the log messages of the logs mode.
var testLogLevels = []string{"debug", "info", "warning", "error"}

// storm lists 1,000 new tools every 20 ms.
func (s *testServerState) storm() {
	for gen := 0; ; gen++ {
		time.Sleep(20 * time.Millisecond)
		names := make([]string, 1000)
		for i := range names {
			names[i] = "t" + strconv.Itoa(gen) + "_" + strconv.Itoa(i)
		}
		s.mu.Lock()
		s.tools = names
		s.mu.Unlock()
		s.notify("notifications/tools/list_changed", map[string]any{})
	}
}
