package keys

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opensslEd25519Public was made by `openssl genpkey -algorithm ed25519 |
// openssl pkey -pubout`.
const opensslEd25519Public = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJXsOu39p8yDkKuRLFSarCH1P+QTegKEizQNi0i4jrE0=
-----END PUBLIC KEY-----
`

func privatePEM(t testing.TB, k crypto.PrivateKey, headers map[string]string) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Headers: headers, Bytes: der}))
}

func publicPEM(t testing.TB, k crypto.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(k)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func newEC(t testing.TB, curve elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(curve, rand.Reader)
	require.NoError(t, err)
	return k
}

func newEd(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	return k
}

func TestParseSingleECKey(t *testing.T) {
	k := newEC(t, elliptic.P256())
	s, err := Parse([]byte(privatePEM(t, k, nil)))
	require.NoError(t, err)

	thumb, err := Thumbprint(&k.PublicKey)
	require.NoError(t, err)
	assert.Equal(t, thumb, s.KeyID(), "without a kid header the kid is the thumbprint")
	assert.Equal(t, AlgES256, s.Algorithm())

	var doc struct {
		Keys []map[string]string `json:"keys"`
	}
	require.NoError(t, json.Unmarshal(s.JWKS(), &doc))
	require.Len(t, doc.Keys, 1)
	assert.Equal(t, map[string]string{"kty": "EC", "crv": "P-256", "x": doc.Keys[0]["x"], "y": doc.Keys[0]["y"],
		"kid": thumb, "alg": "ES256", "use": "sig"}, doc.Keys[0])
	assert.NotContains(t, string(s.JWKS()), `"d"`, "no private part is published")

	pubs, err := ParseJWKS(s.JWKS())
	require.NoError(t, err)
	require.Len(t, pubs, 1)
	assert.True(t, k.PublicKey.Equal(pubs[0].Key))
	assert.Equal(t, s.PublicKeys(), pubs)
}

// TestParseRotation: an Ed25519 active key with a kid header, a retired EC
// private key and a retired public key made by openssl, all published, the
// active one first.
func TestParseRotation(t *testing.T) {
	active := newEd(t)
	retired := newEC(t, elliptic.P256())
	config := "# push signing keys\n" +
		privatePEM(t, active, map[string]string{"kid": "2026-05"}) +
		privatePEM(t, retired, map[string]string{"kid": "2026-01"}) +
		opensslEd25519Public

	s, err := Parse([]byte(config))
	require.NoError(t, err)
	assert.Equal(t, "2026-05", s.KeyID())
	assert.Equal(t, AlgEdDSA, s.Algorithm())

	pubs, err := ParseJWKS(s.JWKS())
	require.NoError(t, err)
	require.Len(t, pubs, 3)
	assert.Equal(t, []string{"2026-05", "2026-01"}, []string{pubs[0].KID, pubs[1].KID})
	assert.Equal(t, AlgEdDSA, pubs[0].Alg)
	assert.Equal(t, AlgES256, pubs[1].Alg)
	assert.True(t, retired.PublicKey.Equal(pubs[1].Key))
	assert.Equal(t, AlgEdDSA, pubs[2].Alg)
	assert.Equal(t, s.PublicKeys(), pubs)

	// The same configuration with escaped line breaks, as in some env files.
	escaped := strings.ReplaceAll(config, "\n", `\n`)
	s2, err := Parse([]byte(escaped))
	require.NoError(t, err)
	assert.Equal(t, s.JWKS(), s2.JWKS())
	assert.Equal(t, s.ETag(), s2.ETag())
}

func TestParseErrors(t *testing.T) {
	ec := newEC(t, elliptic.P256())
	ecPEM := privatePEM(t, ec, nil)
	p384 := privatePEM(t, newEC(t, elliptic.P384()), nil)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	sec1, err := x509.MarshalECPrivateKey(ec)
	require.NoError(t, err)
	sec1PEM := string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}))
	body := func(p string) string { return strings.Split(p, "\n")[1] }

	tests := []struct {
		name, config, want string
	}{
		{"empty", "", "no PEM block"},
		{"not PEM", "hello", "no PEM block"},
		{"public key first", opensslEd25519Public + ecPEM, "block 1 must be the active PRIVATE KEY"},
		{"SEC 1", sec1PEM, "convert it to PKCS#8"},
		{"certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "unsupported PEM type"},
		{"P-384", p384, "only P-256"},
		{"RSA", privatePEM(t, rsaKey, nil), "unsupported key type"},
		{"garbage DER", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "block 1: not a PKCS#8"},
		{"duplicate kid", privatePEM(t, ec, map[string]string{"kid": "a"}) + privatePEM(t, newEd(t), map[string]string{"kid": "a"}), "block 2: duplicate kid"},
		{"duplicate key", ecPEM + ecPEM, "duplicate kid"},
		{"kid with space", privatePEM(t, ec, map[string]string{"kid": "a b"}), "printable ASCII"},
		{"kid too long", privatePEM(t, ec, map[string]string{"kid": strings.Repeat("k", 129)}), "1 to 128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.config))
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), body(ecPEM), "errors never echo key material")
		})
	}
}

func TestLoad(t *testing.T) {
	pemText := privatePEM(t, newEd(t), nil)
	s, err := Load(context.Background(), func(context.Context) ([]byte, error) { return []byte(pemText), nil })
	require.NoError(t, err)
	assert.Equal(t, AlgEdDSA, s.Algorithm())

	boom := errors.New("secret store down")
	_, err = Load(context.Background(), func(context.Context) ([]byte, error) { return nil, boom })
	assert.ErrorIs(t, err, boom)
}

func TestSignVerifies(t *testing.T) {
	for _, alg := range []string{AlgES256, AlgEdDSA} {
		t.Run(alg, func(t *testing.T) {
			s, err := Generate(alg)
			require.NoError(t, err)
			assert.Equal(t, alg, s.Algorithm())
			now := time.Unix(1_800_000_000, 0) // the verifier is given the same time
			signed, err := s.Sign(jwt.RegisteredClaims{
				Issuer:    "https://agent.example.com",
				Audience:  jwt.ClaimStrings{"https://hooks.example.com/a2a"},
				IssuedAt:  jwt.NewNumericDate(now),
				ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
			})
			require.NoError(t, err)

			pubs, err := ParseJWKS(s.JWKS())
			require.NoError(t, err)
			tok, err := jwt.ParseWithClaims(signed, &jwt.RegisteredClaims{}, func(tok *jwt.Token) (any, error) {
				assert.Equal(t, s.KeyID(), tok.Header["kid"])
				assert.Equal(t, "JWT", tok.Header["typ"])
				return pubs[0].Key, nil
			}, jwt.WithValidMethods([]string{alg}), jwt.WithAudience("https://hooks.example.com/a2a"), jwt.WithTimeFunc(func() time.Time { return now }))
			require.NoError(t, err)
			assert.True(t, tok.Valid)
		})
	}
	_, err := Generate("RS256")
	assert.Error(t, err)
}

// A configured key id is written into the JWS header as JSON, escaped,
// and the token still verifies; a changed payload does not.
func TestSignHeaderAndTamper(t *testing.T) {
	tests := []struct {
		name string
		key  crypto.PrivateKey
		alg  string
	}{
		{"ES256", newEC(t, elliptic.P256()), AlgES256},
		{"EdDSA", newEd(t), AlgEdDSA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kid := `rot"2026"\\<05>`
			s, err := Parse([]byte(privatePEM(t, tt.key, map[string]string{"kid": kid})))
			require.NoError(t, err)
			signed, err := s.Sign(map[string]any{"jti": "t-1:1"})
			require.NoError(t, err)
			parts := strings.Split(signed, ".")
			require.Len(t, parts, 3)
			header, err := base64.RawURLEncoding.DecodeString(parts[0])
			require.NoError(t, err)
			assert.JSONEq(t, `{"alg":"`+tt.alg+`","kid":"rot\"2026\"\\\\\u003c05\u003e","typ":"JWT"}`, string(header))

			verify := func(token string) error {
				_, err := jwt.Parse(token, func(tok *jwt.Token) (any, error) {
					assert.Equal(t, kid, tok.Header["kid"])
					return s.PublicKeys()[0].Key, nil
				}, jwt.WithValidMethods([]string{tt.alg}))
				return err
			}
			require.NoError(t, verify(signed))
			forged := base64.RawURLEncoding.EncodeToString([]byte(`{"jti":"t-1:2"}`))
			assert.ErrorIs(t, verify(parts[0]+"."+forged+"."+parts[2]), jwt.ErrTokenSignatureInvalid)
		})
	}
}

func TestServeHTTP(t *testing.T) {
	s, err := Generate(AlgES256)
	require.NoError(t, err)
	tests := []struct {
		method, ifNoneMatch string
		code                int
		body                string
	}{
		{http.MethodGet, "", http.StatusOK, string(s.JWKS())},
		{http.MethodHead, "", http.StatusOK, ""},
		{http.MethodGet, s.ETag(), http.StatusNotModified, ""},
		{http.MethodGet, `"other", ` + strings.TrimPrefix(s.ETag(), "W/"), http.StatusNotModified, ""},
		{http.MethodGet, `W/"other"`, http.StatusOK, string(s.JWKS())},
		{http.MethodPost, "", http.StatusMethodNotAllowed, "method not allowed\n"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, "/.well-known/jwks.json", nil)
		if tt.ifNoneMatch != "" {
			r.Header.Set("If-None-Match", tt.ifNoneMatch)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		assert.Equal(t, tt.code, w.Code, tt.method+" "+tt.ifNoneMatch)
		assert.Equal(t, tt.body, w.Body.String())
		if tt.code == http.StatusOK {
			assert.Equal(t, s.ETag(), w.Header().Get("ETag"))
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			assert.Equal(t, "public, max-age=300", w.Header().Get("Cache-Control"))
		}
	}
	assert.True(t, strings.HasPrefix(s.ETag(), `W/"`))
}

// TestThumbprintRFC8037 checks the Ed25519 example of RFC 8037 appendix A.3.
func TestThumbprintRFC8037(t *testing.T) {
	x, err := base64.RawURLEncoding.DecodeString("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
	require.NoError(t, err)
	got, err := Thumbprint(ed25519.PublicKey(x))
	require.NoError(t, err)
	assert.Equal(t, "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k", got)
}

func TestParseJWKS(t *testing.T) {
	s, err := Generate(AlgES256)
	require.NoError(t, err)
	var doc struct {
		Keys []map[string]any `json:"keys"`
	}
	require.NoError(t, json.Unmarshal(s.JWKS(), &doc))
	good := doc.Keys[0]
	with := func(changes map[string]any) string {
		k := map[string]any{}
		for n, v := range good {
			k[n] = v
		}
		for n, v := range changes {
			if v == nil {
				delete(k, n)
			} else {
				k[n] = v
			}
		}
		data, err := json.Marshal(k)
		require.NoError(t, err)
		return string(data)
	}
	rsaKey := `{"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB"}`

	tests := []struct {
		name string
		doc  string
		kids []string
		err  string
	}{
		{"valid", `{"keys":[` + with(nil) + `]}`, []string{s.KeyID()}, ""},
		{"other types skipped", `{"keys":[` + rsaKey + `,` + with(nil) + `]}`, []string{s.KeyID()}, ""},
		{"no kid skipped", `{"keys":[` + with(map[string]any{"kid": nil}) + `]}`, nil, ""},
		{"encryption key skipped", `{"keys":[` + with(map[string]any{"use": "enc"}) + `]}`, nil, ""},
		{"no alg is fine", `{"keys":[` + with(map[string]any{"alg": nil, "use": nil}) + `]}`, []string{s.KeyID()}, ""},
		{"duplicate kid keeps first", `{"keys":[` + with(nil) + `,` + with(nil) + `]}`, []string{s.KeyID()}, ""},
		{"alg mismatch", `{"keys":[` + with(map[string]any{"alg": "HS256"}) + `]}`, nil, "does not match"},
		{"point not on curve", `{"keys":[` + with(map[string]any{"y": good["x"]}) + `]}`, nil, "invalid EC point"},
		{"short x", `{"keys":[` + with(map[string]any{"x": "AAAA"}) + `]}`, nil, "32-byte"},
		{"not JSON", `nope`, nil, "parse JWKS"},
		{"no keys", `{}`, nil, "no \"keys\""},
		{"bad Ed25519", `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"e","x":"AAAA"}]}`, nil, "32-byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pubs, err := ParseJWKS([]byte(tt.doc))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			var kids []string
			for _, p := range pubs {
				kids = append(kids, p.KID)
			}
			assert.Equal(t, tt.kids, kids)
		})
	}
}

// TestGenerateIsParseOfItsKey: a generated set is the one Parse makes of
// its key's PKCS#8 PEM (same kid, algorithm and JWKS).
func TestGenerateIsParseOfItsKey(t *testing.T) {
	for _, alg := range []string{AlgES256, AlgEdDSA} {
		t.Run(alg, func(t *testing.T) {
			s, err := Generate(alg)
			require.NoError(t, err)
			der, err := x509.MarshalPKCS8PrivateKey(s.private)
			require.NoError(t, err)
			parsed, err := Parse(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
			require.NoError(t, err)
			assert.Equal(t, parsed.KeyID(), s.KeyID())
			assert.Equal(t, parsed.Algorithm(), s.Algorithm())
			assert.JSONEq(t, string(parsed.JWKS()), string(s.JWKS()))
			assert.Equal(t, parsed.ETag(), s.ETag())
		})
	}
}

// TestGenerateOnFirstUse: the set is usable at once and makes no key
// until it is used; its first uses, concurrent, wait for the one key
// made, which is then the set Generate would make (Parse of its key's
// PEM); done is called once, with it.
func TestGenerateOnFirstUse(t *testing.T) {
	for _, alg := range []string{AlgES256, AlgEdDSA} {
		t.Run(alg, func(t *testing.T) {
			done := make(chan *Set, 2)
			s, err := GenerateOnFirstUse(alg, func(s *Set, err error) {
				assert.NoError(t, err)
				assert.NotEmpty(t, s.KeyID(), "done may use the set")
				done <- s
			})
			require.NoError(t, err)
			assert.Nil(t, s.private, "no key before the first use")
			assert.Empty(t, done)
			// Used at once and concurrently, as a server's first requests may.
			signed := make(chan string, 4)
			for range cap(signed) {
				go func() {
					tok, err := s.Sign(jwt.RegisteredClaims{Issuer: "https://agent.example.com"})
					assert.NoError(t, err)
					signed <- tok
				}()
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/.well-known/jwks.json", nil))
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, string(s.JWKS()), w.Body.String())
			assert.Equal(t, s.ETag(), w.Header().Get("ETag"))

			require.Same(t, s, <-done)
			assert.Empty(t, done, "done is called once")
			parsed, err := Parse([]byte(privatePEM(t, s.private, nil)))
			require.NoError(t, err)
			assert.Equal(t, parsed.KeyID(), s.KeyID())
			assert.Equal(t, alg, s.Algorithm())
			assert.Equal(t, parsed.PublicKeys(), s.PublicKeys())
			assert.JSONEq(t, string(parsed.JWKS()), string(s.JWKS()))
			for range cap(signed) {
				tok, err := jwt.Parse(<-signed, func(tok *jwt.Token) (any, error) {
					assert.Equal(t, s.KeyID(), tok.Header["kid"])
					return s.PublicKeys()[0].Key, nil
				}, jwt.WithValidMethods([]string{alg}))
				require.NoError(t, err)
				assert.True(t, tok.Valid)
			}
		})
	}
	called := false
	_, err := GenerateOnFirstUse("RS256", func(*Set, error) { called = true })
	assert.ErrorContains(t, err, `unsupported algorithm "RS256"`)
	assert.False(t, called, "an unknown algorithm fails at once")
}

// TestSetWithoutItsKey: a set whose key could not be made at its first
// use says why wherever it is used.
func TestSetWithoutItsKey(t *testing.T) {
	s := &Set{makeKey: func() error { return errors.New("generate push signing key: no entropy") }}
	_, err := s.Sign(jwt.RegisteredClaims{})
	assert.ErrorContains(t, err, "no entropy")
	assert.Empty(t, s.KeyID())
	assert.Empty(t, s.Algorithm())
	assert.Empty(t, s.PublicKeys())
	assert.Empty(t, s.JWKS())
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/.well-known/jwks.json", nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Contains(t, w.Body.String(), "no entropy")
}
