package mcpid_test

import (
	"errors"
	"fmt"

	"github.com/mcpid/mcpid"
)

func ExampleNewAliases() {
	aliases, err := mcpid.NewAliases(map[string]string{
		"projects/acme/locations/eu/connections/drive-1": "drive1",
		"arn:aws:s3:::acme-reports":                      "reports",
	})
	if err != nil {
		panic(err)
	}
	alias, _ := aliases.Alias("projects/acme/locations/eu/connections/drive-1")
	long, _ := mcpid.SelfContainedID("docs:q3", "projects/acme/locations/eu/connections/drive-1")
	short, _ := mcpid.SelfContainedID("docs:q3", alias)
	fmt.Println(long)
	fmt.Println(short)

	// Fetch maps the alias an id embeds back to its connection.
	h := mcpid.MustParse(short)
	conn, _ := aliases.Connection(h.ConnectionID())
	fmt.Println(conn)

	// An alias that would need escaping is refused.
	_, err = mcpid.NewAliases(map[string]string{"drive:team": "drive:t"})
	var e *mcpid.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field, e.Message())
	}
	// Output:
	// projects%2Facme%2Flocations%2Feu%2Fconnections%2Fdrive-1/docs:q3
	// drive1/docs:q3
	// projects/acme/locations/eu/connections/drive-1
	// invalid_connection_id alias alias contains ':'
}
