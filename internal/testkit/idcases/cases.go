// Package idcases holds the one table of fetch-handle ids, with a verdict
// for each, that drives the parser, codec and resolution tests and seeds
// the fuzz targets, and the plainly written reference parser they are
// checked against. It is for tests only.
package idcases

import (
	"fmt"
	"strings"
)

// Case is one id and what parsing it must give.
type Case struct {
	Name string
	ID   string
	// Valid ids: the parts. Conn is the decoded connection; Stream is ""
	// for the opaque form, whose Record is the opaque base id.
	OK                   bool
	Conn, Stream, Record string
	// Invalid ids: where the fault is.
	Segment string // "connection", "stream", "record" or ""
	Offset  int    // byte offset into ID, -1 for the empty id
}

func ok(name, id, conn, stream, record string) Case {
	return Case{Name: name, ID: id, OK: true, Conn: conn, Stream: stream, Record: record}
}

func bad(name, id, segment string, offset int) Case {
	return Case{Name: name, ID: id, Segment: segment, Offset: offset}
}

// Cases returns the table: hand-written rows for the grammar's edges and
// the bad inputs, then every printable ASCII character in every segment
// of both forms.
func Cases() []Case {
	cases := []Case{
		// The two forms.
		ok("legacy", "orders:o1", "", "orders", "o1"),
		ok("self-contained", "cin_4f2a/orders:o1", "cin_4f2a", "orders", "o1"),
		ok("record keeps later colons", "s:urn:x:y", "", "s", "urn:x:y"),
		ok("record of colons", "c/s::", "c", "s", ":"),
		ok("record starting with colon", "s::r", "", "s", ":r"),
		ok("one byte each", "c/s:r", "c", "s", "r"),
		ok("dots that do not touch", "a.b/c.d:e.f.g", "a.b", "c.d", "e.f.g"),
		ok("dot at segment edges", "a./.b:.c.", "a.", ".b", ".c."),
		ok("three-byte segments of dots apart", "._./._.:._.", "._.", "._.", "._."),
		ok("whitespace", " / : ", " ", " ", " "),
		ok("url-ish record", "c/web:a%2Fb?x=1#frag", "c", "web", "a%2Fb?x=1#frag"),
		ok("quotes", `c/s:"it's"`, "c", "s", `"it's"`),
		ok("non-ASCII", "café/données:été", "café", "données", "été"),
		ok("replacement character is legal", "s:\uFFFD", "", "s", "\uFFFD"),
		ok("lookalike division slash", "cin\u2215a/orders:o1", "cin\u2215a", "orders", "o1"),
		ok("lookalike fullwidth solidus", "s:o\uFF0F1", "", "s", "o\uFF0F1"),
		ok("lookalike fullwidth colon", "s\uFF1Ax:r", "", "s\uFF1Ax", "r"),
		ok("bidi override", "c/s:\u202Eevil", "c", "s", "\u202Eevil"),
		ok("just past C1", "s:\u00A0", "", "s", "\u00A0"),
		ok("long", "cin_4f2a7c91b3e04d6f/salesforce_opportunities:0065g00000XyZabAAF", "cin_4f2a7c91b3e04d6f", "salesforce_opportunities", "0065g00000XyZabAAF"),
		ok("non-ASCII across words", "0123456\u00e9/abcdefgh:ijklmno\u00e9\u00e9", "0123456\u00e9", "abcdefgh", "ijklmno\u00e9\u00e9"),
		ok("four-byte rune", "s:\U0001F600", "", "s", "\U0001F600"),

		// Structure.
		bad("empty id", "", "", -1),
		bad("empty connection", "/s:r", "connection", 0),
		bad("empty stream before a second slash", "c//r", "stream", 2),
		bad("empty legacy stream", ":r", "stream", 0),
		bad("empty record", "c/s:", "record", 3),
		bad("empty legacy record", "s:", "record", 1),
		bad("nothing after slash", "c/", "stream", 1),
		bad("only a slash", "/", "connection", 0),
		bad("only a colon", ":", "stream", 0),
		bad("no colon", "orders", "stream", 0),
		bad("no colon after connection", "c/s", "stream", 2),
		bad("second slash in stream", "c/x/s:r", "stream", 3),
		bad("second slash in record", "c/s:r/x", "record", 5),
		bad("trailing slash makes a connection with a colon", "s:r/", "connection", 1),
		bad("colon in connection", "a:b/s:r", "connection", 1),
		bad("second slash before colon", "a/b/c", "stream", 3),

		// Traversal.
		bad("dotdot in connection", "a..b/s:r", "connection", 1),
		bad("dotdot in stream", "c/a..b:r", "stream", 3),
		bad("dotdot in record", "c/s:a..b", "record", 5),
		bad("record is dotdot", "c/s:..", "record", 4),
		bad("record ends in dotdot", "c/s:a..", "record", 5),
		bad("dot connection", "./s:r", "connection", 0),
		bad("dot stream", "c/.:r", "stream", 2),
		bad("dot legacy stream", ".:r", "stream", 0),
		bad("dot record", "c/s:.", "record", 4),
		bad("traversal in record", "cin_a/orders:../../etc/passwd", "record", 13),
		bad("traversal as connection", "../cin_a/orders:o1", "connection", 0),
		bad("backslash in connection", `c\d/s:r`, "connection", 1),
		bad("dotdot before backslash", `s:..\x`, "record", 2),
		bad("backslash traversal", `s:x\..\y`, "record", 3),
		bad("dotdot across a word boundary", "0123456/s:9abcdef..", "record", 17),
		bad("dotdot over the first word edge", "0123456..:r", "stream", 7),
		bad("dotdot over the word edge", "c/s:012.....", "record", 7),

		// Control characters and encoding.
		bad("NUL", "c/s:r\x00", "record", 5),
		bad("TAB", "c/s\t:r", "stream", 3),
		bad("LF", "c\n/s:r", "connection", 1),
		bad("CR", "s:r\r", "record", 3),
		bad("DEL", "s\x7f:r", "stream", 1),
		bad("C1 NEL", "s:r\u0085", "record", 3),
		bad("C1 last", "s:\u009Fx", "record", 2),
		bad("C1 first", "\u0080/s:r", "connection", 0),
		bad("invalid byte", "s:r\xff", "record", 3),
		bad("truncated sequence", "c\xc3/s:r", "connection", 1),
		bad("encoded surrogate", "s:\xed\xa0\x80", "record", 2),
		bad("overlong slash", "s:\xc0\xafx", "record", 2),
		bad("control in a long id", "cin_4f2a7c91/orders:0065g00000\x01XyZ", "record", 30),
		// Faults deep in long ids and at 8-byte boundaries, where a
		// scanner that reads a word at a time would meet them.
		bad("dotdot across a word inside the id", "s:01234..9abcdef", "record", 7),
		bad("C1 at a word's last byte", "0123456\u0085/s:r", "connection", 7),
		bad("C1 at the end of a long id", "cin_4f2a/orders:o1\u0085", "record", 18),
		bad("invalid UTF-8 in a long id", "cin_4f2a/orders:o\xff1", "record", 17),
		bad("DEL in a long id", "cin_4f2a/orders:o\x7f1", "record", 17),
		bad("backslash in a long id", `cin_4f2a/orders:o\1`, "record", 17),
		bad("TAB in a long id", "cin_4f2a/ord\ters:o1", "stream", 12),
		bad("second slash in a long id", "cin_4f2a/orders:o1/o2", "record", 18),
		bad("colon in a long connection", "cin:4f2a7c91/orders:o1", "connection", 3),
		// Three-byte leads followed by bytes that are not continuations,
		// alone and in a run of CJK characters read two at a time.
		bad("three-byte lead before ASCII", "0:\xef000000000000000", "record", 2),
		bad("three-byte lead before one continuation", "s:\xe6\x96x", "record", 2),
		bad("broken character in a CJK run", "s:文書第三\xe5\x9b四半期", "record", 14),
		bad("broken character after a CJK pair", "s:文書\xe5x\x9b四半期の売上", "record", 8),
		bad("escape cut short in a connection", "projects%2Fp1%2/s:r", "connection", 13),
		bad("escape in lowercase", "projects%2fp1/s:r", "connection", 8),
		ok("CJK run longer than a word", "c/文書:第三四半期の売上報告書", "c", "文書", "第三四半期の売上報告書"),
		ok("C1 lookalike U+00A0 in a long id", "cin_4f2a/orders:o\u00a01", "cin_4f2a", "orders", "o\u00a01"),
		ok("0xC2 lead at a word's last byte", "0123456\u00a9/s:r", "0123456\u00a9", "s", "r"),
		bad("first fault wins", "a\x00b/c..d:e", "connection", 1),
		// The edges of the two- and three-byte characters that the
		// checker takes without decoding.
		ok("last two-byte character", "s:\u07ff", "", "s", "\u07ff"),
		ok("first three-byte character past the overlong lead", "s:\u1000", "", "s", "\u1000"),
		ok("last three-byte character", "s:x\uffff", "", "s", "x\uffff"),
		ok("three-byte characters between ASCII", "c/a\u6587b:\u66f8.pdf", "c", "a\u6587b", "\u66f8.pdf"),
		bad("two-byte lead at the end", "s:a\xc3", "record", 3),
		bad("two-byte lead before ASCII", "s:\xc3A", "record", 2),
		bad("three-byte lead cut short at the end", "s:a\xe6\x96", "record", 3),
		bad("three-byte lead before ASCII", "s:\xe6\x96A", "record", 2),
		bad("overlong three-byte slash", "s:\xe0\x80\xaf", "record", 2),
		bad("three-byte lead with a stray lead after it", "s:\xe6\xe6\x96\x87", "record", 2),
		bad("surrogate after a CJK character", "s:\u6587\xed\xa0\x80abc", "record", 5),
		bad("overlong four-byte character", "s:\xf0\x80\x80\x80abcd", "record", 2),
		bad("four-byte character past U+10FFFF", "s:\xf4\x90\x80\x80abcd", "record", 2),
		bad("C1 control after two-byte text", "s:\u00e9\u00e9\u0085abcd", "record", 6),
		ok("four-byte characters between two-byte ones", "s:\u00e9\U0001F600\u00e9\U0010FFFF", "", "s", "\u00e9\U0001F600\u00e9\U0010FFFF"),

		// Escaped connections: %25, %2F and %3A, uppercase, and nothing else.
		ok("GCP resource name", "projects%2Fp1%2Fconnections%2Fc2/orders:o1", "projects/p1/connections/c2", "orders", "o1"),
		ok("ARN, opaque", "arn%3Aaws%3As3%3A%3A%3Abucket/:key/a b.txt", "arn:aws:s3:::bucket", "", "key/a b.txt"),
		ok("colon in a connection", "drive%3Ateam/s:r", "drive:team", "s", "r"),
		ok("percent in a connection", "100%25/s:r", "100%", "s", "r"),
		ok("every escape", "%25%2F%3A/:x", "%/:", "", "x"),
		ok("escaped slash between dots", ".%2F./s:r", "./.", "s", "r"),
		ok("escaped connection that looks like a handle", "c1%2Fs%3Ar/:x", "c1/s:r", "", "x"),
		ok("percent in a stream is literal", "c/s%2F:r", "c", "s%2F", "r"),
		ok("percent in a legacy stream is literal", "s%3A:r", "", "s%3A", "r"),
		ok("percent in an opaque id is literal", "c/:a%2Fb%zz", "c", "", "a%2Fb%zz"),
		bad("lowercase escape", "a%2fb/s:r", "connection", 1),
		bad("escape of another byte", "a%41/s:r", "connection", 1),
		bad("escaped backslash", "a%5Cb/s:r", "connection", 1),
		bad("bare percent", "50%/s:r", "connection", 2),
		bad("percent cut short", "a%2/s:r", "connection", 1),
		bad("bad escape after a good one", "%2F%2f/s:r", "connection", 3),
		bad("dotdot beside an escape", "a..%2Fb/s:r", "connection", 1),
		bad("control after an escape", "a%2F\x01/s:r", "connection", 4),
		bad("escaped connection, bad opaque id", "a%2Fb/:x\x00", "record", 8),

		// The opaque form: anything but controls and invalid UTF-8, verbatim.
		ok("opaque key", "cin_9b1c/:T-17", "cin_9b1c", "", "T-17"),
		ok("opaque URL", "cin_9b1c/:https://wiki.example.com/p/7?rev=3#top", "cin_9b1c", "", "https://wiki.example.com/p/7?rev=3#top"),
		ok("opaque key with slash", "cin_drive/:files:reports/q3.pdf", "cin_drive", "", "files:reports/q3.pdf"),
		ok("opaque backslash", `c/:C:\dir\f.txt`, "c", "", `C:\dir\f.txt`),
		ok("opaque dotdot", "c/:commits:v1.2..v1.3", "c", "", "commits:v1.2..v1.3"),
		ok("opaque traversal is kept verbatim", "c/:../../etc/passwd", "c", "", "../../etc/passwd"),
		ok("opaque dot", "c/:.", "c", "", "."),
		ok("opaque colon", "c/::", "c", "", ":"),
		ok("opaque slash colon", "c/:/:", "c", "", "/:"),
		ok("opaque spaces", "c/: a b ", "c", "", " a b "),
		ok("opaque non-ASCII", "café/:données/été", "café", "", "données/été"),
		ok("opaque holds another handle", "c2/:c1/s:r", "c2", "", "c1/s:r"),
		ok("opaque holds an opaque handle", "c2/:c1/:x", "c2", "", "c1/:x"),
		ok("opaque 64 KiB", "c/:"+strings.Repeat("k/", 32<<10), "c", "", strings.Repeat("k/", 32<<10)),
		bad("empty opaque", "c/:", "record", 2),
		bad("opaque without connection", "/:x", "connection", 0),
		bad("opaque with dot connection", "./:x", "connection", 0),
		bad("opaque with dotdot connection", "a..b/:x", "connection", 1),
		bad("opaque with colon connection", "a:b/:x", "connection", 1),
		bad("opaque with backslash connection", `a\b/:x`, "connection", 1),
		bad("opaque NUL", "c/:a\x00", "record", 4),
		bad("opaque LF", "c/:a\nb", "record", 4),
		bad("opaque DEL", "c/:\x7f", "record", 3),
		bad("opaque C1", "c/:x\u0085", "record", 4),
		bad("opaque invalid byte", "c/:x\xff", "record", 4),
		bad("opaque encoded surrogate", "c/:\xed\xa0\x80", "record", 3),
		bad("opaque control after valid non-ASCII", "c/:é\u009f", "record", 5),
		bad("connection checked before stream", "a..b/c\x00:d", "connection", 1),
	}
	return append(cases, asciiCases()...)
}

// asciiCases puts every printable ASCII character inside each segment of
// both forms, with the verdict the grammar gives.
func asciiCases() []Case {
	var cases []Case
	for c := byte(0x20); c < 0x7f; c++ {
		ch := string([]byte{c})
		name := func(where string) string { return fmt.Sprintf("%q in %s", ch, where) }
		cases = append(cases, ok(name("opaque"), "c/:a"+ch+"b", "c", "", "a"+ch+"b"))
		switch c {
		case '%':
			cases = append(cases,
				bad(name("connection"), "a%b/s:r", "connection", 1),
				ok(name("stream"), "c/a%b:r", "c", "a%b", "r"),
				ok(name("record"), "c/s:a%b", "c", "s", "a%b"),
				ok(name("legacy stream"), "a%b:r", "", "a%b", "r"),
				ok(name("legacy record"), "s:a%b", "", "s", "a%b"),
			)
		case '/':
			cases = append(cases,
				bad(name("connection"), "a/b/s:r", "stream", 3),
				bad(name("stream"), "c/a/b:r", "stream", 3),
				bad(name("record"), "c/s:a/b", "record", 5),
				ok(name("legacy stream"), "a/b:r", "a", "b", "r"), // the '/' makes it self-contained
				bad(name("legacy record"), "s:a/b", "connection", 1),
			)
		case ':':
			cases = append(cases,
				bad(name("connection"), "a:b/s:r", "connection", 1),
				ok(name("stream"), "c/a:b:r", "c", "a", "b:r"),
				ok(name("record"), "c/s:a:b", "c", "s", "a:b"),
				ok(name("legacy stream"), "a:b:r", "", "a", "b:r"),
				ok(name("legacy record"), "s:a:b", "", "s", "a:b"),
			)
		case '\\':
			cases = append(cases,
				bad(name("connection"), `a\b/s:r`, "connection", 1),
				bad(name("stream"), `c/a\b:r`, "stream", 3),
				bad(name("record"), `c/s:a\b`, "record", 5),
				bad(name("legacy stream"), `a\b:r`, "stream", 1),
				bad(name("legacy record"), `s:a\b`, "record", 3),
			)
		default:
			cases = append(cases,
				ok(name("connection"), "a"+ch+"b/s:r", "a"+ch+"b", "s", "r"),
				ok(name("stream"), "c/a"+ch+"b:r", "c", "a"+ch+"b", "r"),
				ok(name("record"), "c/s:a"+ch+"b", "c", "s", "a"+ch+"b"),
				ok(name("legacy stream"), "a"+ch+"b:r", "", "a"+ch+"b", "r"),
				ok(name("legacy record"), "s:a"+ch+"b", "", "s", "a"+ch+"b"),
			)
		}
	}
	return cases
}
