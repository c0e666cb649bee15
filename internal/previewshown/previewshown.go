// Package previewshown lends searchfetch the preview renderer's account
// of what it wrote, so that a search learns which hits a page shows from
// the renderer rather than by parsing the text again, without adding an
// API to package mcpid.
package previewshown

// Render is mcpid's renderShown, of type
//
//	func(hits []mcpid.Hit, opts mcpid.PreviewOptions) (text string, shown []mcpid.Hit, at []int)
//
// set by mcpid as it initializes: the text RenderPreview returns, the hits
// it shows with their fields as shown, and the index of each in hits. It
// is typed any because this package cannot import mcpid, which imports it.
var Render any
