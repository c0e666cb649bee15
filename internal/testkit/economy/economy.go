// Package economy holds the fixtures and the measure of what a search
// costs a model: the o200k tokens per id it shows, in each channel, which
// the tests bound at 75 because every token of a result is context the
// model pays for.
// The tests of package mcpid (the text) and of package searchfetch (the
// text and structuredContent) share them. It is for tests only, and it
// does not import mcpid (whose own tests import it): hits are Hit values
// with the fields of mcpid.Hit, in its order, so that they convert with
// mcpid.Hit(h).
package economy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// MaxTokensPerID is the most o200k tokens a default search may cost per id
// it shows, in each channel: the whole text (header and footer included),
// or the serialized structuredContent, divided by the ids it shows. It
// holds for hits without URLs: a shown URL, which a host turns into a
// citation, costs its own tokens (see WithURLs).
const MaxTokensPerID = 75

// Hit has the fields of mcpid.Hit, in its order.
type Hit struct {
	ID, ConnectionID, ConnectorKey, Stream, DisplayName, Title, Snippet, URL string
}

// Reference returns the token-budget fixture, with base ids as a backend
// returns them: n hits across two connections, one whose connection
// embeds as it is (cin_drive) and one whose connection needs escaping
// (eu:tickets), each with a 500-character snippet.
func Reference(n int) []Hit {
	hits := make([]Hit, n)
	for i := range hits {
		h := Hit{
			ConnectorKey: "gdrive",
			Stream:       "docs",
			DisplayName:  "Team Drive",
			Title:        fmt.Sprintf("Design review notes, week %d", i+1),
			Snippet:      strings.Repeat(fmt.Sprintf("Notes %03d: the budget caps the preview. ", i), 13)[:500],
		}
		if i%2 == 0 {
			h.ConnectionID, h.ID = "cin_drive", fmt.Sprintf("docs:d%03d", i)
		} else {
			h.ConnectionID, h.ID = "eu:tickets", fmt.Sprintf("tickets:t%03d", i)
			h.ConnectorKey, h.Stream, h.DisplayName = "zendesk", "tickets", "Support EU"
		}
		hits[i] = h
	}
	return hits
}

// Connection is a connection of the multi-connection fixture.
type Connection struct {
	ID, Alias, ConnectorKey, Stream, DisplayName string
	// Record is a base id of the shape the source mints.
	Record string
}

// Connections are the connections of a server with sources of every
// kind, as a newcomer's real server had them: 14 connections, among them
// a GCP resource name, an ARN and a Drive id, each with an alias.
var Connections = []Connection{
	{"projects/acme/locations/eu/connections/drive-1", "drive1", "gdrive", "files", "Acme EU Drive", "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"},
	{"arn:aws:s3:::acme-reports", "reports", "s3", "objects", "Reports bucket", "2024/Q3/revenue-summary.pdf"},
	{"drive:team", "team", "gdrive", "files", "Team Drive", "1Cq8ZPaK0ym3cVwRzS4bYtQh"},
	{"projects/acme/locations/us/connections/jira-1", "jira", "jira", "issues", "Jira", "issues:PROJ-1742"},
	{"cin_4f2a", "pg", "postgres", "orders", "Prod DB", "orders:o-104233"},
	{"cin_9b1c", "zendesk", "zendesk", "tickets", "Support", "tickets:88213"},
	{"arn:aws:dynamodb:eu-west-1:123456789012:table/customers", "customers", "dynamodb", "items", "Customers", "customers:c#8812"},
	{"projects/acme/locations/eu/connections/confluence-2", "wiki", "confluence", "pages", "Wiki", "pages:123456789"},
	{"slack:T024BE7LD", "slack", "slack", "messages", "Acme Slack", "messages:C024BE91L/p1715690011000200"},
	{"github:acme/platform", "gh", "github", "issues", "platform repo", "issues:1187"},
	{"salesforce:00D5g000004ZabC", "sfdc", "salesforce", "opportunities", "Salesforce", "opportunities:0065g00000XyZabAAF"},
	{"notion:acme-workspace", "notion", "notion", "pages", "Notion", "pages:8a3f2c10-77d4-4b0e-9d55-0c1e2f3a4b5c"},
	{"drive:legal", "legal", "gdrive", "files", "Legal Drive", "contracts/2024/msa-acme-globex.docx"},
	{"hubspot:4412087", "crm", "hubspot", "contacts", "HubSpot", "contacts:90211"},
}

// Aliases returns the aliases of Connections, connection id to alias.
func Aliases() map[string]string {
	m := make(map[string]string, len(Connections))
	for _, c := range Connections {
		m[c.ID] = c.Alias
	}
	return m
}

// MultiConnection returns n hits spread over Connections, with base ids as
// a backend returns them and real connection ids.
func MultiConnection(n int) []Hit {
	titles := []string{
		"Q3 revenue summary for the EU region",
		"Refund request: parcel never arrived",
		"Design review notes, week 12",
		"Migrate the billing service to the new queue",
		"Contract renewal with Globex Corporation",
		"Onboarding checklist for new support staff",
		"Incident 2024-07-14: checkout latency",
	}
	snippets := []string{
		"Revenue grew 12% quarter over quarter, driven by the enterprise tier; churn stayed flat at 2.1% while expansion revenue doubled in the Nordics.",
		"The customer writes that the parcel for order o-104233 never arrived and asks for a refund or a replacement before the end of the month.",
		"We agreed to cap the preview by bytes, not hits, and to keep every id complete; open question: how titles share the room that is left.",
	}
	hits := make([]Hit, n)
	for i := range hits {
		c := Connections[i%len(Connections)]
		base := c.Record
		if i >= len(Connections) {
			base += fmt.Sprintf("-%d", i)
		}
		hits[i] = Hit{
			ID: base, ConnectionID: c.ID,
			ConnectorKey: c.ConnectorKey, Stream: c.Stream, DisplayName: c.DisplayName,
			Title:   titles[i%len(titles)],
			Snippet: snippets[i%len(snippets)],
		}
	}
	return hits
}

// TokensPerID returns the o200k tokens of text divided by ids, the ids
// it shows. The o200k vocabulary is compiled into the tokenizer's module:
// it loads without a network.
func TokensPerID(t testing.TB, text string, ids int) float64 {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatalf("o200k: %v", err)
	}
	n, err := enc.Count(text)
	if err != nil {
		t.Fatalf("o200k: %v", err)
	}
	if ids == 0 {
		t.Fatalf("no id shown in %q", text)
	}
	return float64(n) / float64(ids)
}

// CheckShown checks the condition under which the tokens per id are
// measured: every hit shown keeps a title (its first 8 bytes or more, or
// all of it) and at least half of them a snippet of 24 bytes or more.
// shown are the hits as a channel shows them, titles and snippets cut
// with "…"; titles maps each shown id to its hit's full title.
func CheckShown(t testing.TB, shown []Hit, titles map[string]string) {
	t.Helper()
	snippets := 0
	for _, s := range shown {
		full, ok := titles[s.ID]
		if !ok {
			t.Errorf("shown id %q is no hit's", s.ID)
			continue
		}
		title := strings.TrimSuffix(s.Title, "…")
		if s.Title != full && (len(title) < 8 || !strings.HasPrefix(full, title)) {
			t.Errorf("hit %q shows the title %q of %q", s.ID, s.Title, full)
		}
		if len(strings.TrimSuffix(s.Snippet, "…")) >= 24 {
			snippets++
		}
	}
	if 2*snippets < len(shown) {
		t.Errorf("%d of %d hits shown with a snippet of 24 bytes or more", snippets, len(shown))
	}
}

// WithURLs returns hits, each with the https URL where a person opens the
// record, of the length a source gives (40 to 60 bytes): the connector's
// host and the record's id with every byte but letters, digits, '-', '.',
// '_' and '~' made '-'.
func WithURLs(hits []Hit) []Hit {
	out := make([]Hit, len(hits))
	for i, h := range hits {
		record := []byte(h.ID)
		for j, c := range record {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
				record[j] = '-'
			}
		}
		h.URL = "https://" + h.ConnectorKey + ".example.com/r/" + string(record)
		out[i] = h
	}
	return out
}
