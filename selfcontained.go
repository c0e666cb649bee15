package mcpid

// SelfContainedID gives a search hit one id that carries its connection, so
// that the model fetches that hit, and no other, with the id alone: a legacy
// handle takes the plain form, any other base id the opaque one. It returns
// baseID unchanged and false when connectionID is not a name or baseID cannot
// be shown; it never guesses that baseID already is a handle.
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
