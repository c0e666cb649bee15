package mcpid

// SelfContainedID gives a hit one id that carries its connection. A search
// tool does it to each hit's id before it shows it, so that the model can
// fetch that hit, and no other, with the id alone. When connectionID is a
// name (see [ResolveFetch]; '/' and ':' allowed) and baseID is non-empty,
// valid UTF-8 without control characters:
//
//   - a legacy handle stream:record becomes connection/stream:record;
//   - any other baseID becomes the opaque connection/:baseID: URLs, keys
//     with '/', '\' or "..", ids that are no handle at all, and ids that
//     look like self-contained handles, of this connection or another (the
//     drive key reports/2024:q3.pdf of the connection reports is
//     reports/:reports/2024:q3.pdf, never reports/2024:q3.pdf, which is
//     the record 2024:q3.pdf).
//
// The connection is escaped as [Encode] escapes it. Then embedded is true,
// and the id resolves, with [ResolveFetch](id, "") and with
// ResolveFetch(id, connectionID), to exactly connectionID and a
// [Handle.BaseID] equal to baseID byte for byte; for a fixed connectionID,
// distinct base ids give distinct ids. Otherwise (connectionID empty or not
// a name, baseID empty or not showable) it returns baseID unchanged and
// false: a hit without a connection keeps its id, which fetches only if it
// is a legacy handle. SelfContainedID never guesses that baseID already is
// a handle; a server whose resource server mints self-contained handles
// parses them and passes base id and connection apart.
func SelfContainedID(baseID, connectionID string) (id string, embedded bool) {
	if f := checkPart(connectionID, "", connectionBytes); f.fault != faultNone {
		return baseID, false
	}
	if _, f := checkChars(baseID, opaqueBytes); f != faultNone || baseID == "" {
		return baseID, false
	}
	if h, f := parse(baseID); f.fault == faultNone && !h.IsSelfContained() {
		return join(connectionID, "/", baseID), true
	}
	return join(connectionID, "/:", baseID), true
}
