package searchfetch

import (
	"strings"

	"github.com/mcpid/mcpid"
)

// The words mcpid writes for the model name the tools as registered: they
// are built from [Options.SearchName] and [Options.FetchName] once, in
// [New], from templates in which {search} and {fetch} stand for the names.
// A hint someone else wrote (a backend's, an authorizer's) is never
// rewritten: it reaches the model as written.

// codeHint is the hint the tools give an error of one code in each mode.
type codeHint struct {
	code          mcpid.Code
	hint, chatGPT string // templates; chatGPT "" means hint
}

// codeHints are the hints of the codes whose default hint (mcpid's table)
// names a tool or asks for connection_id. They replace that default hint,
// and only it: an error with a hint of its own keeps it. In ModeChatGPT no
// hint asks for connection_id, which fetch does not take there.
var codeHints = []codeHint{
	{code: mcpid.CodeInvalidID, hint: "pass the id exactly as {search} returned it, as one value, unedited"},
	{code: mcpid.CodeInvalidConnectionID,
		hint:    "pass connection_id exactly as {search} returned it, or omit it",
		chatGPT: "pass an id exactly as {search} returned it, or {search} again"},
	{code: mcpid.CodeConflictingConnectionID,
		hint:    "pass the id alone, without connection_id",
		chatGPT: "pass an id exactly as {search} returned it, or {search} again"},
	{code: mcpid.CodeNotFound, hint: "{search} again and {fetch} an id from the new results"},
	{code: mcpid.CodeInvalidResourceResponse, hint: "retry later, or {fetch} another result"},
	{code: mcpid.CodeUnknownID, hint: "pass an id exactly as {search} showed it, or {search} again"},
	// A forbidden answer may be to an id the model was shown: one whose
	// alias the server no longer has (it restarted without it), or an
	// alias written in another case. Searching again shows ids that fetch.
	{code: mcpid.CodeForbidden, hint: "{search} again, then {fetch} an id that {search} shows"},
}

// emptyAmbiguousHint is the hint of an ambiguous_connection error that
// lists nothing to retry with.
const emptyAmbiguousHint = "{search} again and {fetch} an id from the new results"

// searchHint is the hint of a search that failed with a code about fetch's
// arguments (an id, a connection_id, a list to retry with): search takes
// only a query, so the one step left is another query.
const searchHint = "{search} again with other words"

// searchCodes are the codes whose default hint asks for an argument of
// fetch, which the search tool answers with searchHint.
var searchCodes = map[mcpid.Code]bool{
	mcpid.CodeInvalidID:               true,
	mcpid.CodeInvalidConnectionID:     true,
	mcpid.CodeConflictingConnectionID: true,
	mcpid.CodeAmbiguousConnection:     true,
	mcpid.CodeUnknownID:               true,
}

// The templates of the hints searchfetch writes for its own errors.
const (
	bareHint   = "pass connection_id with the connection the id is from, or an id exactly as {search} showed it"
	badHitHint = "{search} again, or report the source as faulty"
	// chatGPTHint replaces, in ModeChatGPT, a hint that asks for
	// connection_id when its code has no hint of the mode's own.
	chatGPTHint = "{search} again and {fetch} an id from the new results"
)

// hints are the words of one [Tools], built from its names and its mode.
type hints struct {
	codes      map[mcpid.Code]string
	searchArgs argSpec
	fetchArgs  argSpec
	badHit     string
	chatGPT    string
	offset     string // of the errors about the offset argument
	cursor     string // of the errors about the cursor argument
	// bare is that of a bare id with no connection to read it in.
	bare string
	// same names what a later page's call repeats: the query, or all
	// the arguments when the search declares more.
	same string
	// emptyAmbiguous and search are emptyAmbiguousHint and searchHint.
	emptyAmbiguous, search string
}

// newHints returns the hints of the tools named search and fetch in mode,
// whose query and id arguments are named query and id.
func newHints(mode Mode, search, fetch, query, id string) hints {
	names := strings.NewReplacer("{search}", search, "{fetch}", fetch, "{query}", query, "{id}", id)
	h := hints{
		codes:      make(map[mcpid.Code]string, len(codeHints)),
		searchArgs: searchArgs,
		fetchArgs:  fetchArgs,
		badHit:     names.Replace(badHitHint),
		chatGPT:    names.Replace(chatGPTHint),
		offset:     names.Replace(offsetHint),
		cursor:     names.Replace(cursorHint),
		bare:       names.Replace(bareHint),
		same:       "query",

		emptyAmbiguous: names.Replace(emptyAmbiguousHint),
		search:         names.Replace(searchHint),
	}
	if mode == ModeChatGPT {
		h.searchArgs, h.fetchArgs = searchArgsChatGPT, fetchArgsChatGPT
	}
	h.searchArgs.names = append([]string{query}, h.searchArgs.names[1:]...)
	h.fetchArgs.names = append([]string{id}, h.fetchArgs.names[1:]...)
	h.searchArgs.hint = names.Replace(h.searchArgs.hint)
	h.fetchArgs.hint = names.Replace(h.fetchArgs.hint)
	h.fetchArgs.intHint = h.offset
	for _, c := range codeHints {
		hint := c.hint
		if mode == ModeChatGPT && c.chatGPT != "" {
			hint = c.chatGPT
		}
		h.codes[c.code] = names.Replace(hint)
	}
	return h
}

// worded returns e with the hint the tools give its code when e's hint is
// mcpid's default for that code, which names the default tools; an error
// whose hint someone wrote keeps it as written.
func (h *hints) worded(e *mcpid.Error) *mcpid.Error {
	hint, ok := h.codes[e.Code]
	if e.Code == mcpid.CodeAmbiguousConnection {
		// Only mcpid's hint for an empty list names the tools.
		hint, ok = h.emptyAmbiguous, len(e.Available) == 0 && len(e.AvailableIDs) == 0
	}
	if !ok || e.Hint() == hint || e.Hint() != defaultHint(e) {
		return e
	}
	return e.WithHint(hint)
}

// defaultHint returns the hint mcpid's table gives an error like e. Hints
// depend on the code and the lists alone.
func defaultHint(e *mcpid.Error) string {
	d := mcpid.Error{Code: e.Code, Available: e.Available, AvailableIDs: e.AvailableIDs}
	return d.Hint()
}
