package mcpid

// TableSentinels returns the sentinel the table of codes holds for each
// code, for the external tests that check their own table against it.
func TableSentinels() map[Code]error {
	m := make(map[Code]error, len(codes))
	for c, row := range codes {
		m[c] = row.Sentinel
	}
	return m
}
