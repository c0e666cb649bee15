package bearer

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinTokenLen is the shortest token a tokens file may hold, in bytes: 16
// random bytes are beyond guessing, and a shorter token is more likely a
// password someone chose. `openssl rand -hex 32` makes a good one.
const MinTokenLen = 16

// maxLine bounds a line of a tokens file: a user id and a token fit in
// far less, so a longer line is not a tokens file.
const maxLine = 64 << 10

// Table maps bearer tokens to user ids. It keeps each token's SHA-256
// digest only, and [Table.Lookup] compares digests in constant time. The
// zero Table holds no token. A Table is never changed once made, so it
// may be shared.
type Table struct {
	entries []entry
	users   int // distinct user ids
}

// entry is one token: its digest and its user.
type entry struct {
	digest [sha256.Size]byte
	user   string
}

// Lookup returns the user id that token maps to, and reports whether it
// maps to one. Its time does not depend on which token matched, how much
// of one matched, or the length of token: token is hashed, and its
// digest compared with every token's digest with crypto/subtle, without
// stopping at a match. It does not allocate.
func (t *Table) Lookup(token string) (user string, ok bool) {
	if t == nil || len(t.entries) == 0 {
		return "", false
	}
	d := sha256.Sum256([]byte(token))
	found, at := 0, 0
	for i := range t.entries {
		eq := subtle.ConstantTimeCompare(d[:], t.entries[i].digest[:])
		at = subtle.ConstantTimeSelect(eq, i, at)
		found |= eq
	}
	if found == 0 {
		return "", false
	}
	return t.entries[at].user, true
}

// Len returns how many tokens t holds.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.entries)
}

// Users returns how many distinct user ids t's tokens map to.
func (t *Table) Users() int {
	if t == nil {
		return 0
	}
	return t.users
}

// Parse reads a tokens file: one token a line, as
//
//	USER TOKEN
//
// two fields separated by spaces or tabs. USER is the user id the token
// maps to (valid UTF-8, no control character); TOKEN is at least
// [MinTokenLen] bytes in the bearer token syntax of RFC 6750 (letters,
// digits, "-", ".", "_", "~", "+", "/", then any "="), which is what a
// client can send as "Authorization: Bearer TOKEN". Blank lines, and
// lines whose first non-blank character is "#", are ignored. One user may
// have several tokens (a new one beside the old while clients move); a
// token given twice is refused, since it could only map to one user. A
// file with no token is refused: it would let no one in, which is more
// likely a file being written than an intent.
//
// An error is an [*Error] naming the line; it never holds the line's
// text, which may be a token.
func Parse(r io.Reader) (*Table, error) {
	t := &Table{}
	seen := map[[sha256.Size]byte]int{} // digest -> its line
	users := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, &Error{Line: n, Code: CodeSyntax}
		}
		user, token := fields[0], fields[1]
		if code := checkUser(user); code != 0 {
			return nil, &Error{Line: n, Code: code}
		}
		if code := checkToken(token); code != 0 {
			return nil, &Error{Line: n, Code: code}
		}
		d := sha256.Sum256([]byte(token))
		if first, ok := seen[d]; ok {
			return nil, &Error{Line: n, Code: CodeDuplicate, Detail: fmt.Sprintf("the token of line %d again", first)}
		}
		seen[d] = n
		users[user] = true
		t.entries = append(t.entries, entry{digest: d, user: user})
	}
	if err := sc.Err(); err != nil {
		code := CodeUnreadable
		if err == bufio.ErrTooLong {
			code = CodeSyntax
		}
		return nil, &Error{Line: n + 1, Code: code, Err: err}
	}
	if len(t.entries) == 0 {
		return nil, &Error{Code: CodeEmpty}
	}
	t.users = len(users)
	return t, nil
}

// checkUser returns the code of what is wrong with a user id, 0 for
// nothing.
func checkUser(user string) Code {
	if !utf8.ValidString(user) {
		return CodeUser
	}
	for _, r := range user {
		if unicode.IsControl(r) {
			return CodeUser
		}
	}
	return 0
}

// checkToken returns the code of what is wrong with a token, 0 for
// nothing: RFC 6750's b64token, 1*( ALPHA / DIGIT / "-" / "." / "_" /
// "~" / "+" / "/" ) *"=", at least MinTokenLen bytes.
func checkToken(token string) Code {
	body := strings.TrimRight(token, "=")
	if body == "" {
		return CodeTokenSyntax
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0
		if !ok {
			return CodeTokenSyntax
		}
	}
	if len(token) < MinTokenLen {
		return CodeShortToken
	}
	return 0
}

// Load reads the tokens file at path (see [Parse]). It refuses a file
// that others than its owner and group can read, or that others than its
// owner can write: whoever reads it can call the gateway as any of its
// users, and whoever writes it can let anyone in. (On Windows, whose file
// modes say nothing of this, the check is left to the file's ACL.)
func Load(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Code: CodeUnreadable, Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: path, Code: CodeUnreadable, Err: err}
	}
	if mode := fi.Mode().Perm(); runtime.GOOS != "windows" && mode&0o026 != 0 {
		return nil, &Error{Path: path, Code: CodeOpenMode, Detail: fmt.Sprintf("its mode is %v", mode)}
	}
	t, err := Parse(f)
	if err != nil {
		e := err.(*Error)
		e.Path = path
		return nil, e
	}
	return t, nil
}
