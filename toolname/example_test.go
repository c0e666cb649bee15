package toolname_test

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/mcpid/mcpid/toolname"
)

func ExampleJoin() {
	fmt.Println(toolname.Join("github", "create_issue"))
	fmt.Println(toolname.Join("kube:prod", "ns::get"))
	fmt.Println(toolname.Join("weird%3A:name", "t"))
	// Output:
	// github::create_issue
	// kube%3Aprod::ns::get
	// weird%253A%3Aname::t
}

func ExampleSplit() {
	server, tool, err := toolname.Split("kube%3Aprod::ns::get")
	fmt.Printf("%q %q %v\n", server, tool, err)

	// A key with a raw ':' in its server part is not one that Join writes.
	_, _, err = toolname.Split("kube:prod::ns::get")
	fmt.Println(errors.Is(err, toolname.ErrInvalidRoutingKey))
	fmt.Println(err)
	// Output:
	// "kube:prod" "ns::get" <nil>
	// true
	// toolname: invalid_routing_key: raw ':' in the server part (offset=4, routing_key="kube:prod::ns::get"); escape ':' in a server as %3A, as Join does
}

func ExampleError() {
	keys := []toolname.Key{
		{Server: "github", Tool: "search"},
		{Server: "", Tool: "fetch"},
	}
	_, err := toolname.Assign(toolname.Portable, keys)
	var e *toolname.Error
	if errors.As(err, &e) && errors.Is(err, toolname.ErrInvalidKey) {
		fmt.Printf("key %d, field %s: %s\n", e.Index, e.Field, e.Message())
		fmt.Println(e.Hint())
	}
	// Output:
	// key 1, field server: key has an empty server
	// give every key a non-empty server and tool
}

func ExampleAssign() {
	keys := []toolname.Key{
		{Server: "github", Tool: "create_issue"},
		{Server: "github", Tool: "search"},
		{Server: "gitlab", Tool: "search"},
		{Server: "docs", Tool: "admin.tools.list"},
		{Server: "docs", Tool: "café"},
	}
	names, err := toolname.Assign(toolname.OpenAI, keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range keys {
		name, _ := names.Name(k)
		fmt.Printf("%-28s %s\n", toolname.Join(k.Server, k.Tool), name)
	}
	for _, f := range names.Fallbacks() {
		fmt.Printf("%s: %s\n", f.Name, f.Reason)
	}
	// Output:
	// github::create_issue         create_issue
	// github::search               github__search
	// gitlab::search               gitlab__search
	// docs::admin.tools.list       docs__admin_tools_list
	// docs::café                   docs__cafe
	// docs__admin_tools_list: qualified|folded
	// docs__cafe: qualified|folded
	// github__search: qualified
	// gitlab__search: qualified
}

func ExampleTable_Key() {
	names, err := toolname.Assign(toolname.Portable, []toolname.Key{
		{Server: "kube:prod", Tool: "get"},
		{Server: "kube:staging", Tool: "get"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The model calls a tool by the name it was given; the gateway looks
	// the name up and routes the call.
	for _, called := range []string{"kube_prod__get", "kube_staging__get", "kube_test__get"} {
		k, ok := names.Key(called)
		fmt.Println(called, "->", k.Server, k.Tool, ok)
	}
	// Output:
	// kube_prod__get -> kube:prod get true
	// kube_staging__get -> kube:staging get true
	// kube_test__get ->   false
}

func ExampleProfile_Valid() {
	for _, name := range []string{"create_issue", "admin.tools.list", "2fa"} {
		fmt.Println(name, toolname.OpenAI.Valid(name), toolname.Gemini.Valid(name), toolname.MCP.Valid(name))
	}
	// Output:
	// create_issue true true true
	// admin.tools.list false true true
	// 2fa true false true
}

func ExampleWithLogger() {
	// Log every name that is not its bare tool name, for the operator.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	keys := []toolname.Key{
		{Server: "github", Tool: "search"},
		{Server: "gitlab", Tool: "search"},
		{Server: "jira", Tool: "create_issue"},
	}
	if _, err := toolname.Assign(toolname.OpenAI, keys, toolname.WithLogger(logger)); err != nil {
		panic(err)
	}
	// Output:
	// level=INFO msg="toolname: fallback name" server=github tool=search name=github__search reason=qualified
	// level=INFO msg="toolname: fallback name" server=gitlab tool=search name=gitlab__search reason=qualified
}

// An MCP App calls its server's tool by its own name, which the gateway
// qualified; Route finds its key while exactly one live tool has that name.
func ExampleTable_Route() {
	names, err := toolname.Assign(toolname.Portable, []toolname.Key{
		{Server: "docs", Tool: "search"}, {Server: "tickets", Tool: "search"}, {Server: "tickets", Tool: "close"},
	})
	if err != nil {
		panic(err)
	}
	k, err := names.Route("close")
	fmt.Println(k.Server, k.Tool, err)
	k, err = names.Route("docs__search")
	fmt.Println(k.Server, k.Tool, err)

	_, err = names.Route("search")
	var e *toolname.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Available)
	}
	// Output:
	// tickets close <nil>
	// docs search <nil>
	// ambiguous_tool [docs__search tickets__search]
}
