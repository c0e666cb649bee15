// Package sentences is a fixture: its first sentence has eleven words.
// Its second spans two lines and has [nine] words.
//
//	code blocks are not counted. Ever.
//
// # A heading is not counted
//
//   - A list item ends a sentence
//   - and so does this one, on
//     two lines.
//
// Dots in 3.5 or e.g.x do not end one?
package sentences
