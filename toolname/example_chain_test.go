package toolname_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpid/mcpid/toolname"
)

// A gateway's life: servers join and leave, and the table is saved and
// restored across a restart. No tool is renamed and no name changes hands.
func ExampleWithPrevious() {
	github := []toolname.Key{{Server: "github", Tool: "search"}, {Server: "github", Tool: "create_issue"}}
	gitlab := []toolname.Key{{Server: "gitlab", Tool: "search"}}
	// step assigns the names after an event and shows them.
	step := func(event string, keys []toolname.Key, opts ...toolname.Option) *toolname.Table {
		n, err := toolname.Assign(toolname.Portable, keys, opts...)
		if err != nil {
			fmt.Println(event+":", err)
			return nil
		}
		var b strings.Builder
		for k, name := range n.All() {
			fmt.Fprintf(&b, " %s=%s", toolname.Join(k.Server, k.Tool), name)
		}
		fmt.Printf("%-15s%s\n", event+":", b.String())
		return n
	}

	day1 := step("github alone", github)

	// gitlab joins with a search of its own: github's keeps its name.
	day2 := step("gitlab joins", append(github, gitlab...), toolname.WithPrevious(day1))

	// github leaves; its names are retired, not handed on.
	day3 := step("github leaves", gitlab, toolname.WithPrevious(day2))
	_, ok := day3.Key("search")
	fmt.Println("search resolves:", ok)

	// The gateway restarts from its saved table, and github comes back.
	data, err := json.Marshal(day3)
	if err != nil {
		fmt.Println(err)
		return
	}
	restored := new(toolname.Table)
	if err := json.Unmarshal(data, restored); err != nil {
		fmt.Println(err)
		return
	}
	step("github returns", append(gitlab, github...), toolname.WithPrevious(restored))
	// Output:
	// github alone:   github::create_issue=create_issue github::search=search
	// gitlab joins:   github::create_issue=create_issue github::search=search gitlab::search=gitlab__search
	// github leaves:  gitlab::search=gitlab__search
	// search resolves: false
	// github returns: github::create_issue=create_issue github::search=search gitlab::search=gitlab__search
}

func ExampleWithQualifyAll() {
	keys := []toolname.Key{
		{Server: "github", Tool: "create_issue"},
		{Server: "my.server", Tool: "search"},
	}
	names, err := toolname.Assign(toolname.OpenAI, keys, toolname.WithQualifyAll())
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, name := range names.All() {
		fmt.Println(toolname.Join(k.Server, k.Tool), name)
	}
	// Output:
	// github::create_issue github__create_issue
	// my.server::search my_server__search_f7vz3s3yis
}

func ExampleWithReserved() {
	keys := []toolname.Key{{Server: "docs", Tool: "help"}, {Server: "docs", Tool: "search"}}
	names, err := toolname.Assign(toolname.Portable, keys, toolname.WithReserved("help"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, name := range names.All() {
		fmt.Println(toolname.Join(k.Server, k.Tool), name)
	}
	// Output:
	// docs::help docs__help
	// docs::search search
}

func ExampleTable_MarshalJSON() {
	first, err := toolname.Assign(toolname.Portable, []toolname.Key{
		{Server: "a", Tool: "search"}, {Server: "b", Tool: "search"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	names, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "b", Tool: "search"}}, toolname.WithPrevious(first))
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := json.MarshalIndent(names, "", "  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	// The chain id is random, made when the chain started.
	id, _ := names.Chain()
	fmt.Println(strings.Replace(string(data), id, "<chain id>", 1))
	// Output:
	// {
	//   "version": 2,
	//   "chain": "<chain id>",
	//   "generation": 2,
	//   "options": {
	//     "profile": "Portable",
	//     "max_len": 63,
	//     "qualify_all": false,
	//     "reserved": []
	//   },
	//   "names": [
	//     {
	//       "server": "b",
	//       "tool": "search",
	//       "name": "b__search",
	//       "reason": "qualified"
	//     }
	//   ],
	//   "retired": [
	//     {
	//       "server": "a",
	//       "tool": "search",
	//       "name": "a__search",
	//       "reason": "qualified"
	//     }
	//   ]
	// }
}
