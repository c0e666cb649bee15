package searchfetch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpid/mcpid/internal/jsonlit"
	"github.com/mcpid/mcpid/toolname"
)

// This file holds the arguments a server declares beside a tool's own
// ([Options.SearchArgs], [Options.FetchArgs]): the schema they come in,
// how each is checked, and the canonical object a backend receives.

// maxExtraArgs bounds the arguments a server declares for one tool: the
// tools mark those given in one 64-bit word, and a model reads each.
const maxExtraArgs = 64

// argType is the JSON Schema type of a declared argument.
type argType uint8

// The types a declared argument may have.
const (
	typeString argType = iota
	typeInteger
	typeNumber
	typeBoolean
	typeArray
	typeObject
)

// argTypes names each argType as JSON Schema does.
var argTypes = map[string]argType{
	"string": typeString, "integer": typeInteger, "number": typeNumber,
	"boolean": typeBoolean, "array": typeArray, "object": typeObject,
}

// typeWords are the words of an argType in an error: "is not <words>".
var typeWords = [...]string{"a string", "an integer", "a number", "a boolean", "an array", "an object"}

// ownArg is one of a tool's own arguments, which a server's schema may
// only describe.
type ownArg struct {
	name string
	typ  string // its JSON Schema type, which stays the tool's
}

// extraArg is one argument a server declared.
type extraArg struct {
	name     string
	key      string // name as a JSON string, for the canonical object
	typ      argType
	enum     []string // the canonical values allowed; nil for any
	required bool
	schema   json.RawMessage // the property's schema, compact, for the model
	hint     string
}

// extraArgs are the arguments a server declared for one tool, in the
// order of its schema, and the descriptions it gave the tool's own.
type extraArgs struct {
	args      []extraArg
	described map[string]string // own argument name: its description
}

// description returns the description x gives the tool's own argument
// name, and reports whether it gives one. x may be nil.
func (x *extraArgs) description(name string) (string, bool) {
	if x == nil {
		return "", false
	}
	d, ok := x.described[name]
	return d, ok
}

// index returns the position of the declared argument whose name is key,
// or -1.
func (x *extraArgs) index(key string) int {
	for i := range x.args {
		if x.args[i].name == key {
			return i
		}
	}
	return -1
}

// compileArgs reads raw, a server's JSON Schema of a tool's extra
// arguments: an object {"type":"object","properties":{…},"required":[…]}
// (beside which "$schema" and an "additionalProperties" of false may
// stand). Each property has a type among string, integer, number,
// boolean, array and object, and keeps its other keywords for the model
// and the backend; one named like an argument in own may only give that
// argument's description. It returns nil for an empty raw.
func compileArgs(raw json.RawMessage, own []ownArg) (*extraArgs, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, errors.New(`is not a JSON object {"type":"object","properties":{…}}`)
	}
	var required []string
	for key, v := range top {
		var ok bool
		switch key {
		case "type":
			var s string
			ok = json.Unmarshal(v, &s) == nil && s == "object"
		case "properties", "$schema":
			ok = true
		case "required":
			ok = json.Unmarshal(v, &required) == nil
		case "additionalProperties":
			var b bool
			ok = json.Unmarshal(v, &b) == nil && !b
		default:
			return nil, fmt.Errorf("has the keyword %s, which the tools do not read at the top (only type, properties and required)", quote(key))
		}
		if !ok {
			return nil, fmt.Errorf("has a %s that is not what the tools need (type \"object\", required a list of names, additionalProperties false)", quote(key))
		}
	}
	if string(top["type"]) == "" {
		return nil, errors.New(`has no "type":"object"`)
	}
	names, props, err := properties(top["properties"])
	if err != nil {
		return nil, err
	}
	x := &extraArgs{described: map[string]string{}}
	for i, name := range names {
		if err := x.add(name, props[i], own); err != nil {
			return nil, fmt.Errorf("property %s %w", quote(name), err)
		}
	}
	if len(x.args) > maxExtraArgs {
		return nil, fmt.Errorf("declares %d arguments, more than %d", len(x.args), maxExtraArgs)
	}
	for _, name := range required {
		i := x.index(name)
		switch {
		case i >= 0:
			x.args[i].required = true
		case len(own) == 0 || name != own[0].name:
			// Only the tool's first own argument (the query, the id)
			// is required by the tool itself.
			return nil, fmt.Errorf("requires %s, which it does not declare or the tool takes as optional", quote(name))
		}
	}
	return x, nil
}

// properties returns the names and schemas of the members of raw, a
// JSON object, in the order raw writes them.
func properties(raw json.RawMessage) (names []string, props []json.RawMessage, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New(`has no "properties" object`)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, errors.New(`has a "properties" that is not a JSON object`)
		}
		name := tok.(string)
		var prop json.RawMessage
		if err := dec.Decode(&prop); err != nil {
			return nil, nil, errors.New(`has a "properties" that is not a JSON object`)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("declares property %s twice", quote(name))
		}
		seen[name] = true
		names, props = append(names, name), append(props, prop)
	}
	return names, props, nil
}

// add adds the property name, whose schema is raw, to x: the description
// of an argument in own, or a declared argument.
func (x *extraArgs) add(name string, raw json.RawMessage, own []ownArg) error {
	var prop map[string]json.RawMessage
	if err := json.Unmarshal(raw, &prop); err != nil || prop == nil {
		return errors.New("is not a JSON Schema object")
	}
	for _, o := range own {
		if o.name != name {
			continue
		}
		var desc, typ string
		for key, v := range prop {
			switch {
			case key == "type" && json.Unmarshal(v, &typ) == nil && typ == o.typ:
			case key == "description" && json.Unmarshal(v, &desc) == nil:
			default:
				return fmt.Errorf("names an argument of the tool: it may only describe it (a description string, and type %s if any)", quote(o.typ))
			}
		}
		x.described[name] = desc
		return nil
	}
	var typ string
	if t, ok := prop["type"]; !ok || json.Unmarshal(t, &typ) != nil {
		return errors.New(`has no "type" (one of string, integer, number, boolean, array, object)`)
	}
	if !toolname.MCP.Valid(name) {
		return errors.New("is not a valid argument name (1 to 128 of A-Z a-z 0-9 _ - .)")
	}
	at, ok := argTypes[typ]
	if !ok {
		return fmt.Errorf("has the type %s, not one of string, integer, number, boolean, array, object", quote(typ))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return errors.New("is not a JSON Schema object")
	}
	a := extraArg{name: name, key: string(marshal(name)), typ: at, schema: compact.Bytes()}
	a.hint = "pass " + name + " as " + typeWords[at]
	if e, ok := prop["enum"]; ok {
		var values []json.RawMessage
		if err := json.Unmarshal(e, &values); err != nil || len(values) == 0 {
			return errors.New(`has an "enum" that is not a list of values`)
		}
		for _, v := range values {
			p := argScanner{s: v}
			c, err := p.value(&a)
			if err != nil || p.i != len(v) {
				return fmt.Errorf("has an enum value %s that is not %s", v, typeWords[at])
			}
			a.enum = append(a.enum, c)
		}
		a.hint = "pass " + name + " as one of " + strings.Join(a.enum, ", ")
	}
	x.args = append(x.args, a)
	return nil
}

// value reads the value of the declared argument a, which must be of its
// type, and returns it canonical: a string as the tools write JSON, an
// integer as its plain digits (1e3 is 1000, by the rule of
// [argScanner.integer], negative ones too), a number as written if a
// float64 holds it, an array or object compacted. A value of another
// type, null included, is an invalid_arguments error whose Field is a's
// name. It does not check a's enum.
func (p *argScanner) value(a *extraArg) (string, error) {
	notType := func() error {
		return fieldError(a.name, "argument "+quote(a.name)+" is not "+typeWords[a.typ], a.hint)
	}
	switch a.typ {
	case typeString:
		lit, ok := p.str()
		if !ok {
			return "", notType()
		}
		s, ok := jsonlit.Unquote(lit)
		if !ok {
			return "", notType()
		}
		return string(marshal(s)), nil
	case typeInteger:
		var digits string
		if err := p.integer(a.name, a.hint, true, &digits); err != nil {
			return "", err
		}
		return digits, nil
	case typeNumber:
		start := p.i
		p.numberEnd()
		lit := string(p.s[start:p.i])
		if _, ok := parseNumber(p.s[start:p.i]); !ok {
			return "", notType()
		}
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return "", fieldError(a.name, "argument "+quote(a.name)+" is beyond what a 64-bit float holds", a.hint)
		}
		return lit, nil
	case typeBoolean:
		switch {
		case p.literal("true"):
			return "true", nil
		case p.literal("false"):
			return "false", nil
		}
		return "", notType()
	}
	open := byte('[')
	if a.typ == typeObject {
		open = '{'
	}
	if p.i >= len(p.s) || p.s[p.i] != open {
		return "", notType()
	}
	dec := json.NewDecoder(bytes.NewReader(p.s[p.i:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return "", notType()
	}
	p.i += int(dec.InputOffset())
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return "", notType()
	}
	return compact.String(), nil
}

// readExtra reads the value of the declared argument a and returns it
// canonical, checked against a's type and enum.
func (p *argScanner) readExtra(a *extraArg) (string, error) {
	v, err := p.value(a)
	if err != nil || a.enum == nil {
		return v, err
	}
	for _, e := range a.enum {
		if e == v {
			return v, nil
		}
	}
	return "", fieldError(a.name, "argument "+quote(a.name)+" is not one of the values it allows", a.hint)
}

// canonical returns the Args of the declared arguments whose canonical
// values vals holds ("" for one not given), in the order of x.
func (x *extraArgs) canonical(vals []string) Args {
	var b strings.Builder
	for i, v := range vals {
		if v == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(x.args[i].key)
		b.WriteByte(':')
		b.WriteString(v)
	}
	if b.Len() == 0 {
		return Args{}
	}
	b.WriteByte('}')
	return Args{raw: b.String()}
}
