// Package jsonread holds what the hand-written JSON decoders share: a
// Parser that checks the syntax as it reads (the API Gateway event's, a
// message/send's params) and Unquote, which reads a string of text known
// to be valid (DynamoDB's answers too).
package jsonread

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote returns the value of s, the contents of a valid JSON string
// (between its quotes), as encoding/json reads it: escapes decoded, a
// lone or broken surrogate and each byte that is not UTF-8 made U+FFFD.
func Unquote(s []byte) string {
	for i, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return unquote(s, i)
		}
	}
	return string(s) // plain ASCII, the usual string: one allocation
}

// unquote is Unquote of s, whose bytes before r are plain ASCII.
func unquote(s []byte, r int) string {
	b := make([]byte, 0, len(s))
	b = append(b, s[:r]...)
	for r < len(s) {
		start := r // a run of ASCII without escapes, copied at once
		for r < len(s) && s[r] != '\\' && s[r] < utf8.RuneSelf {
			r++
		}
		b = append(b, s[start:r]...)
		if r == len(s) {
			break
		}
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch e := s[r]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := hex4(s[r+1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					rr = unicode.ReplacementChar
					if r+5 < len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(hex4(s[r-4:]), hex4(s[r+2:])); dec != unicode.ReplacementChar {
							rr = dec
							r += 6
						}
					}
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, e)
			}
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return string(b)
}

// hex4 is the value of the four hex digits s starts with (s is valid).
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Plain reports whether the byte c stands for itself inside a JSON
// string, read or written: ASCII but the control characters, the quote
// and the backslash. The readers and jsonw.String skip runs of such bytes
// (one table lookup a byte).
func Plain(c byte) bool { return plainBytes[c] }

var plainBytes = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
