package telemetry

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// secretPattern is what redactSecretText replaces, as a regular
// expression: the tests hold the one to the other.
var secretPattern = regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9\-._~+/]+=*|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)|\bsk-[A-Za-z0-9_\-]{8,}`)

const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"

func TestRedactSecretText(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"nothing secret, 2eb51973-85e8":    "nothing secret, 2eb51973-85e8",
		"Authorization: Bearer abc.def==;": "Authorization: " + Redacted + ";",
		"bearer\tabc":                      Redacted,
		"BeaRer \n abc x":                  Redacted + " x",
		"set A2A_BEARER_TOKEN to serve":    "set A2A_BEARER_TOKEN to serve",
		"a valid bearer token is required": "a valid " + Redacted + " is required",
		"bearer":                           "bearer",
		"bearer  ":                         "bearer  ",
		"bearer =abc":                      "bearer =abc",
		"send Bearer <token>":              "send Bearer <token>",
		"unbearer abc":                     "un" + Redacted,
		"key: " + pem + " done":            "key: " + Redacted + " done",
		"-----begin private key-----\nabc": Redacted,
		"-----BEGIN PRIVATE KEY-----":      Redacted,
		"-----BEGIN PRIVATE KEY ----- x":   "-----BEGIN PRIVATE KEY ----- x",
		"-----BEGIN PRIVATE KEY X-----":    "-----BEGIN PRIVATE KEY X-----",
		"-----BEGIN PUBLIC KEY-----\nabc":  "-----BEGIN PUBLIC KEY-----\nabc",
		pem + "\n" + pem:                   Redacted + "\n" + Redacted,
		"key sk-abcdefgh and sk-short":     "key " + Redacted + " and sk-short",
		"SK-ABCDEFGH_-12":                  Redacted,
		"xsk-abcdefgh":                     "xsk-abcdefgh",
		"x-sk-abcdefgh":                    "x-" + Redacted,
		// (?i) folds K (U+212A, the Kelvin sign) to k and ſ (U+017F) to s.
		"\u017Fk-abcdefgh":           "\u017Fk-abcdefgh", // ſ is no ASCII word character: no \b before it
		"x\u017Fk-abcdefgh":          "x" + Redacted,
		"bearer \u212A":              Redacted,
		"invalid \xff bearer a\xffb": "invalid \xff " + Redacted + "\xffb",
	} {
		assert.Equal(t, want, redactSecretText(in), "%q", in)
		assert.Equal(t, secretPattern.ReplaceAllString(in, Redacted), redactSecretText(in), "%q: as the pattern", in)
	}
}

// FuzzRedactSecretText holds redactSecretText to the regular expression,
// for any text.
func FuzzRedactSecretText(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer abc", "BEARER\fx=", pem, "-----BEGIN EC PRIVATE KEY-----", "x sk-12345678", "bearer", "\u017Fk-\u212A\u212A\u212A\u212A\u212A\u212A\u212A\u212A", "-----BEGIN \u212A PRIVATE \u212AEY-----"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assert.Equal(t, secretPattern.ReplaceAllString(s, Redacted), redactSecretText(s), "%q", s)
	})
}

// BenchmarkRedactSecretText is what every string of a log line pays.
func BenchmarkRedactSecretText(b *testing.B) {
	s := "POST /rest/v1/message:send 2eb51973-85e8-8c94-8774-41804b550374 bearer-less sk text"
	b.ReportAllocs()
	for b.Loop() {
		redactSecretText(s)
	}
}
