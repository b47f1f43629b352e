// Package jsontest holds inputs that hand-written JSON encoders get wrong,
// for the tests that check them against encoding/json.
package jsontest

// TrickyStrings returns strings that need escaping or replacing: quotes and
// backslashes, control characters, non-ASCII text, invalid UTF-8 and lone
// surrogates, the JavaScript line separators and HTML-sensitive characters
// (and the empty string).
func TrickyStrings() []string {
	return []string{
		"", "plain", `quote " backslash \ slash /`, "nl\n cr\r tab\t", "\x00\x01\x1f\x7f",
		"héllo wörld ✓ 😀", "bad utf8 \xff\xfe end", "\xed\xa0\x80 surrogate", "line\u2028sep\u2029par",
		"<script>&amp;</script>",
	}
}
