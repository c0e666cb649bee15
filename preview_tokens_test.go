package mcpid

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tiktoken-go/tokenizer"
)

// maxTokensPerID is the most o200k tokens a default search may cost per
// id it shows (DESIGN §10): the whole text, header and footer included,
// divided by the ids it shows.
const maxTokensPerID = 75

// o200k returns the o200k_base tokenizer, whose vocabulary is compiled
// into the module: it loads without a network.
func o200k(t testing.TB) tokenizer.Codec {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	require.NoError(t, err)
	return enc
}

// countTokens returns the o200k tokens of text.
func countTokens(t testing.TB, enc tokenizer.Codec, text string) int {
	t.Helper()
	n, err := enc.Count(text)
	require.NoError(t, err)
	return n
}

// multiConnections are the connections of a server with sources of every
// kind, as a newcomer's real server had them: 14 connections, among them a
// GCP resource name, an ARN and a Drive id, each with its alias.
var multiConnections = []struct{ id, alias, connector, stream, name string }{
	{"projects/acme/locations/eu/connections/drive-1", "drive1", "gdrive", "files", "Acme EU Drive"},
	{"arn:aws:s3:::acme-reports", "reports", "s3", "objects", "Reports bucket"},
	{"drive:team", "team", "gdrive", "files", "Team Drive"},
	{"projects/acme/locations/us/connections/jira-1", "jira", "jira", "issues", "Jira"},
	{"cin_4f2a", "pg", "postgres", "orders", "Prod DB"},
	{"cin_9b1c", "zendesk", "zendesk", "tickets", "Support"},
	{"arn:aws:dynamodb:eu-west-1:123456789012:table/customers", "customers", "dynamodb", "items", "Customers"},
	{"projects/acme/locations/eu/connections/confluence-2", "wiki", "confluence", "pages", "Wiki"},
	{"slack:T024BE7LD", "slack", "slack", "messages", "Acme Slack"},
	{"github:acme/platform", "gh", "github", "issues", "platform repo"},
	{"salesforce:00D5g000004ZabC", "sfdc", "salesforce", "opportunities", "Salesforce"},
	{"notion:acme-workspace", "notion", "notion", "pages", "Notion"},
	{"drive:legal", "legal", "gdrive", "files", "Legal Drive"},
	{"hubspot:4412087", "crm", "hubspot", "contacts", "HubSpot"},
}

// multiRecords are base ids of the shapes these sources mint, in the
// order of multiConnections.
var multiRecords = []string{
	"1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
	"2024/Q3/revenue-summary.pdf",
	"1Cq8ZPaK0ym3cVwRzS4bYtQh",
	"issues:PROJ-1742",
	"orders:o-104233",
	"tickets:88213",
	"customers:c#8812",
	"pages:123456789",
	"messages:C024BE91L/p1715690011000200",
	"issues:1187",
	"opportunities:0065g00000XyZabAAF",
	"pages:8a3f2c10-77d4-4b0e-9d55-0c1e2f3a4b5c",
	"contracts/2024/msa-acme-globex.docx",
	"contacts:90211",
}

// multiHits returns n hits spread over multiConnections, as search shows
// them: with aliases, each id embeds its connection's alias and each hit
// has the alias as its connection; without, the connection id itself.
func multiHits(n int, aliases bool) []Hit {
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
		c := multiConnections[i%len(multiConnections)]
		conn := c.id
		if aliases {
			conn = c.alias
		}
		base := multiRecords[i%len(multiRecords)]
		if i >= len(multiConnections) {
			base += fmt.Sprintf("-%d", i)
		}
		id, ok := SelfContainedID(base, conn)
		if !ok {
			panic("unembeddable fixture " + base)
		}
		hits[i] = Hit{
			ID: id, ConnectionID: conn,
			ConnectorKey: c.connector, Stream: c.stream, DisplayName: c.name,
			Title:   titles[i%len(titles)],
			Snippet: snippets[i%len(snippets)],
		}
	}
	return hits
}

// checkShownText checks the condition under which the tokens per id are
// measured: every shown hit keeps a title (its first 8 bytes or more, or
// all of it) and at least half of them a snippet of 24 bytes or more.
func checkShownText(t *testing.T, shown, hits []Hit) {
	t.Helper()
	byID := make(map[string]Hit, len(hits))
	for _, h := range hits {
		byID[h.ID] = h
	}
	snippets := 0
	for _, s := range shown {
		h := byID[s.ID]
		title := strings.TrimSuffix(s.Title, "…")
		assert.True(t, s.Title == h.Title || len(title) >= 8 && strings.HasPrefix(h.Title, title), "title %q of %q", s.Title, h.Title)
		if len(strings.TrimSuffix(s.Snippet, "…")) >= 24 {
			snippets++
		}
	}
	assert.GreaterOrEqual(t, 2*snippets, len(shown), "hits with a snippet of 24 bytes or more")
}

// TestPreviewTokensPerID reports, and bounds, the o200k tokens per shown
// id of the default text preview at the default budget.
func TestPreviewTokensPerID(t *testing.T) {
	enc := o200k(t)
	tests := []struct {
		name string
		hits []Hit
		opts PreviewOptions
	}{
		{"token-budget fixture", budgetHits()[:100], PreviewOptions{Total: 200}},
		{"multi-connection, aliases", multiHits(60, true), PreviewOptions{Total: 240}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := RenderPreview(tt.hits, tt.opts)
			checkPreview(t, out, tt.hits, tt.opts)
			shown := ExtractHits(out)
			require.NotEmpty(t, shown)
			checkShownText(t, shown, tt.hits)
			perID := float64(countTokens(t, enc, out)) / float64(len(shown))
			t.Logf("%.1f o200k tokens per shown id: %d ids in %d bytes", perID, len(shown), len(out))
			assert.LessOrEqual(t, perID, float64(maxTokensPerID), "text:\n%s", out)
		})
	}
	// Without aliases, reported for comparison: escaped connections cost.
	out := RenderPreview(multiHits(60, false), PreviewOptions{Total: 240})
	t.Logf("multi-connection without aliases: %.1f tokens per shown id", float64(countTokens(t, enc, out))/float64(len(ExtractIDs(out))))
}
