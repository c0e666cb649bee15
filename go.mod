module github.com/mcpid/mcpid

go 1.24.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/google/jsonschema-go v0.4.3
	github.com/stretchr/testify v1.11.1
	github.com/tiktoken-go/tokenizer v0.7.0
	golang.org/x/text v0.34.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/dlclark/regexp2 v1.11.5 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
