// Package keys holds the server's push-notification signing keys: it parses
// them from configuration, signs notification JWTs with the active key, and
// publishes every public key as a JWKS document (RFC 7517) for receivers.
//
// # Configuration format
//
// The configuration is PEM text: one or more PEM blocks, one after another.
//
//   - The first block must be a "PRIVATE KEY" block (PKCS#8, unencrypted)
//     holding an EC P-256 key (signs ES256) or an Ed25519 key (signs
//     EdDSA). It is the active signing key.
//   - Further blocks are "PRIVATE KEY" or "PUBLIC KEY" (PKIX) blocks of the
//     same two kinds. They do not sign; their public keys are published so
//     that receivers can still verify notifications signed before a
//     rotation, or already know a key that will become active.
//   - A block may carry a PEM header "kid: <id>" (1 to 128 printable ASCII
//     characters) naming its key id. Without it the key id is the key's
//     RFC 7638 JWK thumbprint (base64url SHA-256), which is stable and
//     needs no bookkeeping. Key ids must be unique.
//
// Generate a key with:
//
//	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256   # ES256
//	openssl genpkey -algorithm ed25519                                # EdDSA
//
// A block with a kid header looks like:
//
//	-----BEGIN PRIVATE KEY-----
//	kid: 2026-05
//
//	MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg...
//	-----END PRIVATE KEY-----
//
// # Rotation
//
//  1. Put the new private key first and keep the old key after it (its
//     private or public block). Notifications are now signed with the new
//     key, and the JWKS lists both. Receivers that meet the new kid refetch
//     the JWKS at once.
//  2. Once no notification signed with the old key can still be accepted
//     (the token lifetime, 5 minutes by default, plus the receivers' JWKS
//     cache time), remove the old block.
//
// To let receivers learn the new key before it signs anything, first add
// it as the second block, wait for their JWKS caches to expire, then
// proceed with step 1.
package keys

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Signing algorithms (JWS "alg" values).
const (
	// AlgES256 is ECDSA with P-256 and SHA-256. The default.
	AlgES256 = "ES256"
	// AlgEdDSA is Ed25519.
	AlgEdDSA = "EdDSA"
)

// maxKIDLength bounds a configured key id.
const maxKIDLength = 128

// PublicKey is one published verification key.
type PublicKey struct {
	// KID is the key id, the JWT header "kid" of the tokens it verifies.
	KID string
	// Alg is AlgES256 or AlgEdDSA.
	Alg string
	// Key is an *ecdsa.PublicKey (P-256) or an ed25519.PublicKey.
	Key crypto.PublicKey
}

// Set is the server's signing configuration: one active private key and
// every published public key. It is immutable and safe for concurrent use
// (one from GenerateOnFirstUse too: its first use makes its key).
type Set struct {
	// makeKey, for a set whose key is made at its first use
	// (GenerateOnFirstUse), makes it once and says why there is none:
	// every method calls it first.
	makeKey func() error

	keyMaterial
}

// keyMaterial is what a Set signs and publishes with: one value, so that
// a key made at its first use is put in its set whole.
type keyMaterial struct {
	kid string
	// alg is the active key's JWS alg, header the encoded JWS header of
	// the tokens it signs (signingHeader).
	alg     string
	header  string
	private crypto.PrivateKey
	public  []PublicKey
	jwks    []byte
	etag    string
}

// Source returns the key configuration (PEM text, see the package
// documentation), for example from an environment variable or a secret
// store.
type Source func(ctx context.Context) ([]byte, error)

// Load reads the configuration from src and parses it. It returns src's
// error wrapped, or Parse's error.
func Load(ctx context.Context, src Source) (*Set, error) {
	data, err := src(ctx)
	if err != nil {
		return nil, fmt.Errorf("read push signing keys: %w", err)
	}
	return Parse(data)
}

// Parse reads the key configuration described in the package
// documentation. Literal "\n" sequences in text without real line breaks
// (as some environment variable tools produce) are read as line breaks. It
// fails, naming the block number but never any key material, when there is
// no PEM block, the first block is not a private key, a block is neither a
// PKCS#8 private key nor a PKIX public key of a supported kind (EC P-256 or
// Ed25519), a kid header is invalid, or two keys share a kid.
func Parse(data []byte) (*Set, error) {
	if !strings.Contains(string(data), "\n") && strings.Contains(string(data), `\n`) {
		data = []byte(strings.ReplaceAll(string(data), `\n`, "\n"))
	}
	s := &Set{}
	seen := map[string]bool{}
	rest := data
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		var (
			priv crypto.PrivateKey
			pub  crypto.PublicKey
			err  error
		)
		switch block.Type {
		case "PRIVATE KEY":
			priv, err = x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("push signing keys: block %d: not a PKCS#8 private key: %w", n, err)
			}
			pub = publicOf(priv)
		case "PUBLIC KEY":
			if n == 1 {
				return nil, errors.New("push signing keys: block 1 must be the active PRIVATE KEY, not a PUBLIC KEY")
			}
			pub, err = x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("push signing keys: block %d: not a PKIX public key: %w", n, err)
			}
		case "EC PRIVATE KEY":
			return nil, fmt.Errorf("push signing keys: block %d: SEC 1 EC key, convert it to PKCS#8 (openssl pkcs8 -topk8 -nocrypt)", n)
		default:
			return nil, fmt.Errorf("push signing keys: block %d: unsupported PEM type %q (want PRIVATE KEY or PUBLIC KEY)", n, block.Type)
		}
		alg, err := algorithmOf(pub)
		if err != nil {
			return nil, fmt.Errorf("push signing keys: block %d: %w", n, err)
		}
		kid, err := kidOf(block, pub)
		if err != nil {
			return nil, fmt.Errorf("push signing keys: block %d: %w", n, err)
		}
		if seen[kid] {
			return nil, fmt.Errorf("push signing keys: block %d: duplicate kid %q", n, kid)
		}
		seen[kid] = true
		if n == 1 {
			s.kid, s.private = kid, priv
			s.alg, s.header = alg, signingHeader(alg, kid)
		}
		s.public = append(s.public, PublicKey{KID: kid, Alg: alg, Key: pub})
	}
	if len(s.public) == 0 {
		return nil, errors.New("push signing keys: no PEM block found")
	}
	if err := s.buildJWKS(); err != nil {
		return nil, err
	}
	return s, nil
}

// Generate makes a set with one new random key for alg (AlgES256 or
// AlgEdDSA), for local development when no key is configured. Its key
// disappears with the process, so receivers must refetch the JWKS after a
// restart; the caller should log that it generated one (and may log
// KeyID). It fails for an unknown alg or when the system's random source
// fails.
func Generate(alg string) (*Set, error) {
	if err := checkGenerated(alg); err != nil {
		return nil, err
	}
	return generate(alg)
}

// GenerateOnFirstUse is Generate for a key that may never be used: it
// returns at once a set whose key is made by the first of its methods to
// be called (every other waits for it), so that a process that never signs
// a notification nor serves its JWKS makes none (a P-256 key and its
// checks cost a tenth to a third of a millisecond). done, when not nil, is
// then called once with the set, or with why no key could be made (the
// system's random source failed: Sign returns that error and ServeHTTP
// answers 500). It fails at once for an unknown alg.
func GenerateOnFirstUse(alg string, done func(*Set, error)) (*Set, error) {
	if err := checkGenerated(alg); err != nil {
		return nil, err
	}
	s := &Set{}
	var once sync.Once
	var err error
	s.makeKey = func() error {
		first := false
		once.Do(func() {
			first = true
			var g *Set
			if g, err = generate(alg); err == nil {
				s.keyMaterial = g.keyMaterial
			}
		})
		// After the key is in the set: done may use it.
		if first && done != nil {
			done(s, err)
		}
		return err
	}
	return s, nil
}

func checkGenerated(alg string) error {
	if alg != AlgES256 && alg != AlgEdDSA {
		return fmt.Errorf("generate push signing key: unsupported algorithm %q", alg)
	}
	return nil
}

// wait makes the key of a set that makes it at its first use, or waits
// for it, and says why there is none.
func (s *Set) wait() error {
	if s.makeKey == nil {
		return nil
	}
	return s.makeKey()
}

func generate(alg string) (*Set, error) {
	var priv crypto.PrivateKey
	switch alg {
	case AlgES256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate push signing key: %w", err)
		}
		priv = k
	case AlgEdDSA:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate push signing key: %w", err)
		}
		priv = k
	}
	// The set Parse would make of the key's PKCS#8 PEM, without the round
	// trip (which derives the public key again: a local server's start-up
	// paid for it twice).
	pub := publicOf(priv)
	kid, err := Thumbprint(pub)
	if err != nil {
		return nil, fmt.Errorf("generate push signing key: %w", err)
	}
	s := &Set{keyMaterial: keyMaterial{kid: kid, private: priv, alg: alg, header: signingHeader(alg, kid), public: []PublicKey{{KID: kid, Alg: alg, Key: pub}}}}
	if err := s.buildJWKS(); err != nil {
		return nil, err
	}
	return s, nil
}

// KeyID returns the kid of the active signing key.
func (s *Set) KeyID() string {
	_ = s.wait()
	return s.kid
}

// Algorithm returns the JWS alg of the active signing key ("" when a key
// made at its first use could not be made).
func (s *Set) Algorithm() string {
	if s.wait() != nil {
		return ""
	}
	return s.alg
}

// PublicKeys returns every published key, the active one first.
func (s *Set) PublicKeys() []PublicKey {
	_ = s.wait()
	return append([]PublicKey(nil), s.public...)
}

// Sign returns a compact JWS (RFC 7515) of claims encoded as JSON, signed
// with the active key, with the header fields alg, kid and typ "JWT". It
// fails only when claims do not encode as JSON or the signature fails.
func (s *Set) Sign(claims any) (string, error) {
	if err := s.wait(); err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("sign push notification: %w", err)
	}
	enc := base64.RawURLEncoding
	b := make([]byte, 0, len(s.header)+enc.EncodedLen(len(payload))+enc.EncodedLen(signatureSize)+2)
	b = append(b, s.header...)
	b = enc.AppendEncode(append(b, '.'), payload)
	sig, err := s.signature(b)
	if err != nil {
		return "", fmt.Errorf("sign push notification: %w", err)
	}
	return string(enc.AppendEncode(append(b, '.'), sig)), nil
}

// signatureSize is the size of both algorithms' signatures.
const signatureSize = 64

// signature signs a JWS's signing input with the active key: ES256's
// signature is R and S, 32 bytes each (RFC 7518 3.4), EdDSA's Ed25519's
// (RFC 8037).
func (s *Set) signature(input []byte) ([]byte, error) {
	switch k := s.private.(type) {
	case *ecdsa.PrivateKey:
		digest := sha256.Sum256(input)
		r, rs, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			return nil, err
		}
		sig := make([]byte, signatureSize)
		r.FillBytes(sig[:signatureSize/2])
		rs.FillBytes(sig[signatureSize/2:])
		return sig, nil
	case ed25519.PrivateKey:
		return ed25519.Sign(k, input), nil
	}
	return nil, fmt.Errorf("unsupported signing key type %T", s.private)
}

// signingHeader returns the encoded JWS header of the tokens that key kid
// signs with alg: {"alg":...,"kid":...,"typ":"JWT"} in base64url.
func signingHeader(alg, kid string) string {
	h, _ := json.Marshal(struct { // strings: it cannot fail
		Alg string `json:"alg"`
		KID string `json:"kid"`
		Typ string `json:"typ"`
	}{alg, kid, "JWT"})
	return base64.RawURLEncoding.EncodeToString(h)
}

// JWKS returns the JWKS document ({"keys":[...]}) listing every public key,
// ready to serve at /.well-known/jwks.json. The caller must not modify it.
func (s *Set) JWKS() []byte {
	_ = s.wait()
	return s.jwks
}

// ETag returns a weak entity tag of the JWKS document.
func (s *Set) ETag() string {
	_ = s.wait()
	return s.etag
}

// ServeHTTP serves the JWKS document to GET and HEAD requests with its
// ETag, a five-minute public Cache-Control, and 304 Not Modified for a
// matching If-None-Match. Other methods get 405.
func (s *Set) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := s.wait(); err != nil {
		http.Error(w, "no push signing key: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", s.etag)
	for tag := range strings.SplitSeq(r.Header.Get("If-None-Match"), ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == strings.TrimPrefix(s.etag, "W/") {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Type", "application/json")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(s.jwks)
}

// publicOf returns the public half of a parsed private key, or nil for an
// unsupported type (algorithmOf then reports it).
func publicOf(priv crypto.PrivateKey) crypto.PublicKey {
	if k, ok := priv.(crypto.Signer); ok {
		return k.Public()
	}
	return nil
}

// algorithmOf returns the JWS alg for a supported public key.
func algorithmOf(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", fmt.Errorf("EC key on curve %s, only P-256 is supported", k.Curve.Params().Name)
		}
		return AlgES256, nil
	case ed25519.PublicKey:
		return AlgEdDSA, nil
	default:
		return "", fmt.Errorf("unsupported key type %T (want EC P-256 or Ed25519)", pub)
	}
}

// kidOf returns the block's kid header, or the key's thumbprint.
func kidOf(block *pem.Block, pub crypto.PublicKey) (string, error) {
	kid, ok := block.Headers["kid"]
	if !ok {
		return Thumbprint(pub)
	}
	if kid == "" || len(kid) > maxKIDLength {
		return "", fmt.Errorf("kid must have 1 to %d characters", maxKIDLength)
	}
	for i := 0; i < len(kid); i++ {
		if kid[i] < 0x21 || kid[i] > 0x7e {
			return "", errors.New("kid must be printable ASCII without spaces")
		}
	}
	return kid, nil
}

// Thumbprint returns the RFC 7638 JWK thumbprint (SHA-256, base64url
// without padding) of an EC P-256 or Ed25519 public key. It fails for other
// keys.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	j, err := toJWK("", pub)
	if err != nil {
		return "", err
	}
	// The required members in lexicographic order, no whitespace.
	var canonical string
	switch j.Kty {
	case "EC":
		canonical = `{"crv":"` + j.Crv + `","kty":"EC","x":"` + j.X + `","y":"` + j.Y + `"}`
	default:
		canonical = `{"crv":"` + j.Crv + `","kty":"OKP","x":"` + j.X + `"}`
	}
	sum := sha256.Sum256([]byte(canonical))
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
