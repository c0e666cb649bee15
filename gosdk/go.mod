module github.com/mcpid/mcpid/gosdk

go 1.24.0

replace github.com/mcpid/mcpid => ../

require (
	github.com/google/go-cmp v0.7.0
	github.com/mcpid/mcpid v0.1.0
	github.com/modelcontextprotocol/go-sdk v1.2.0
	github.com/stretchr/testify v1.11.1
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.30.0 // indirect
	golang.org/x/text v0.34.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
