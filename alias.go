package mcpid

import (
	"sort"
	"strings"
)

// FieldAlias is the [Error.Field] of an error [NewAliases] returns for an
// alias at fault; the connection id it was declared for is then in
// [Error.Embedded].
const FieldAlias = "alias"

// Aliases are short names a server declares for its connections, shown to
// the model in place of long connection ids (searchfetch.Options.Aliases).
// Never give an alias to another connection while ids holding it may live.
// The nil *Aliases maps nothing; Aliases are immutable.
type Aliases struct {
	alias      map[string]string // connection id -> alias
	connection map[string]string // alias -> connection id
}

// NewAliases returns the aliases m declares, from connection id to alias.
// Each alias is a name without '/', ':' or '%' and no alias is a declared
// connection id; a fault is an [*Error] with Code
// [CodeInvalidConnectionID]. m is copied.
func NewAliases(m map[string]string) (*Aliases, error) {
	conns := make([]string, 0, len(m))
	for c := range m {
		conns = append(conns, c)
	}
	sort.Strings(conns)
	a := &Aliases{alias: make(map[string]string, len(m)), connection: make(map[string]string, len(m))}
	for _, c := range conns {
		alias := m[c]
		if f := checkPart(c, "", connectionBytes); f.fault != faultNone {
			return nil, withHint(f.err(FieldConnectionID, c), "declare aliases only for connection ids that are names ('/' and ':' allowed)")
		}
		if err := checkAlias(alias, c); err != nil {
			return nil, err
		}
		if _, ok := m[alias]; ok {
			return nil, aliasError(alias, c, "alias is a declared connection id", "give each connection an alias that is no connection's id")
		}
		if _, ok := a.connection[alias]; ok {
			return nil, aliasError(alias, c, "alias is declared for another connection too", "give each connection an alias of its own")
		}
		a.alias[c] = alias
		a.connection[alias] = c
	}
	return a, nil
}

// checkAlias checks alias, declared for the connection conn, against the
// rule of an alias: a name without '/', ':' and '%'. The first fault in
// alias is the one reported.
func checkAlias(alias, conn string) *Error {
	f := checkPart(alias, "", nameNoColonBytes)
	if pct := strings.IndexByte(alias, '%'); pct >= 0 && (f.fault == faultNone || pct < f.offset) {
		e := aliasError(alias, conn, "alias contains '%'", "use an alias that is written in an id as it is")
		e.Offset = pct
		return e
	}
	if f.fault == faultNone {
		return nil
	}
	e := f.err(FieldAlias, alias)
	e.Code = CodeInvalidConnectionID
	e.Embedded = conn
	return withHint(e, "use an alias that is a name without '/', ':' and '%'")
}

// withHint gives e, a fault in what a server declared, a hint for the
// server's author in place of its code's hint, which speaks to a model.
func withHint(e *Error, hint string) *Error {
	e.text = errorText{e.Message(), hint, true}
	return e
}

// aliasError returns the error of an alias declared for conn that breaks
// no character rule but a rule of the mapping.
func aliasError(alias, conn, message, hint string) *Error {
	e := NewError(CodeInvalidConnectionID, message, hint)
	e.Field, e.Input, e.Embedded = FieldAlias, alias, conn
	return e
}

// Alias returns the alias of the connection connectionID, and reports
// whether it has one. It does not allocate.
func (a *Aliases) Alias(connectionID string) (string, bool) {
	if a == nil {
		return "", false
	}
	alias, ok := a.alias[connectionID]
	return alias, ok
}

// Connection returns the connection id whose alias is alias, and reports
// whether there is one. It does not allocate.
func (a *Aliases) Connection(alias string) (string, bool) {
	if a == nil {
		return "", false
	}
	c, ok := a.connection[alias]
	return c, ok
}
