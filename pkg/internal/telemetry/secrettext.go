package telemetry

import (
	"strings"
	"unicode/utf8"
)

// redactSecretText replaces what looks like a secret in free text with
// Redacted: a bearer credential, a PEM private key block (to its END line,
// or to the end of s when it has none), an sk-... API key. It matches what
// the regular expression
//
//	(?i)bearer\s+[A-Za-z0-9\-._~+/]+=*|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)|\bsk-[A-Za-z0-9_\-]{8,}
//
// would replace (FuzzRedactSecretText holds it to that), in one pass that
// returns s itself when it holds none, and without package regexp, whose
// Unicode tables every process would build at start-up.
func redactSecretText(s string) string {
	var b []byte
	last := 0
	for i := 0; i+1 < len(s); i++ {
		if !secretStart[s[i]] {
			continue
		}
		n := 0
		switch c, d := s[i], s[i+1]; {
		case c|0x20 == 'b' && d|0x20 == 'e':
			n = bearerAt(s, i)
		case c == '-' && d == '-':
			n = pemAt(s, i)
		case c|0x20 == 's' && (d|0x20 == 'k' || d == 0xE2) || c == 0xC5 && d == 0xBF: // 0xE2 starts K, C5 BF is ſ
			n = apiKeyAt(s, i)
		}
		if n == 0 {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
		}
		b = append(append(b, s[last:i]...), Redacted...)
		last = i + n
		i = last - 1
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// secretStart holds the bytes a secret starts with: a table, which every
// byte of every string a log line holds is looked up in.
var secretStart = [256]bool{'b': true, 'B': true, '-': true, 's': true, 'S': true, 0xC5: true} // C5 starts ſ

// bearerAt matches bearer, white space, a token of RFC 6750's characters
// and its padding.
func bearerAt(s string, i int) int {
	j, ok := foldPrefix(s, i, "bearer")
	if !ok {
		return 0
	}
	k := j
	for k < len(s) && space(s[k]) {
		k++
	}
	if k == j {
		return 0
	}
	m := runOf(s, k, tokenChar)
	if m == k {
		return 0
	}
	for m < len(s) && s[m] == '=' {
		m++
	}
	return m - i
}

// pemAt matches a PEM private key block: its BEGIN line's marker, what
// follows it to the first END marker, and that marker; to the end of s
// when no END marker follows.
func pemAt(s string, i int) int {
	j, ok := pemMarker(s, i, "-----begin ")
	if !ok {
		return 0
	}
	for k := j; k < len(s); k++ {
		if s[k] != '-' {
			continue
		}
		if end, ok := pemMarker(s, k, "-----end "); ok {
			return end - i
		}
	}
	return len(s) - i
}

// pemMarker matches prefix (any case), a label of letters and spaces
// that ends in PRIVATE KEY, and five dashes; it returns where the match
// ends.
func pemMarker(s string, i int, prefix string) (int, bool) {
	j, ok := foldPrefix(s, i, prefix)
	if !ok {
		return 0, false
	}
	end := runOf(s, j, labelChar)
	if !strings.HasPrefix(s[end:], "-----") {
		return 0, false
	}
	// The label's last eleven characters are PRIVATE KEY: a label char
	// cannot follow KEY, since a dash does.
	k, n := end, 0
	for k > j && n < len("private key") {
		_, size := utf8.DecodeLastRuneInString(s[j:k])
		k -= size
		n++
	}
	if n < len("private key") {
		return 0, false
	}
	if e, ok := foldPrefix(s, k, "private key"); !ok || e != end {
		return 0, false
	}
	return end + len("-----"), true
}

// apiKeyAt matches sk- and at least eight key characters, at the start of
// a word.
func apiKeyAt(s string, i int) int {
	if prevWord, word := i > 0 && wordByte(s[i-1]), s[i] != 0xC5; prevWord == word {
		return 0 // not at a word boundary (of ASCII words, as \b)
	}
	j, ok := foldPrefix(s, i, "sk-")
	if !ok {
		return 0
	}
	k := runOf(s, j, keyChar)
	if utf8.RuneCountInString(s[j:k]) < 8 {
		return 0
	}
	return k - i
}

// foldPrefix reports whether s at i starts with lower (ASCII lower case)
// under Unicode simple case folding, as (?i) compares, and where that
// prefix ends.
func foldPrefix(s string, i int, lower string) (int, bool) {
	for k := 0; k < len(lower); k++ {
		if i >= len(s) {
			return 0, false
		}
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[k] {
				return 0, false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !foldsTo(r, lower[k]) {
			return 0, false
		}
		i += size
	}
	return i, true
}

// foldsTo reports whether the non-ASCII r folds to the ASCII letter c:
// K (U+212A KELVIN SIGN) folds to k, ſ (U+017F) to s.
func foldsTo(r rune, c byte) bool {
	return r == '\u212A' && c == 'k' || r == '\u017F' && c == 's'
}

// runOf is where the run of characters in class that starts at s[i] ends.
func runOf(s string, i int, class func(rune) bool) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !class(r) {
			break
		}
		i += size
	}
	return i
}

// letter reports whether r is a letter of [A-Za-z] under case folding.
func letter(r rune) bool {
	return 'a' <= r|0x20 && r|0x20 <= 'z' || r == '\u212A' || r == '\u017F'
}

func labelChar(r rune) bool { return letter(r) || r == ' ' }

func tokenChar(r rune) bool {
	return letter(r) || '0' <= r && r <= '9' || strings.ContainsRune("-._~+/", r)
}

func keyChar(r rune) bool { return letter(r) || '0' <= r && r <= '9' || r == '_' || r == '-' }

// space is \s: [\t\n\f\r ].
func space(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// wordByte reports whether c is a word character of \b: [0-9A-Za-z_].
func wordByte(c byte) bool { return c < utf8.RuneSelf && (keyChar(rune(c)) && c != '-') }
