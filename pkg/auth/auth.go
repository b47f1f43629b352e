// Package auth identifies callers. Every request has an identity; tasks
// belong to the identity that created them.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// Identity is an authenticated caller.
type Identity struct {
	// Owner is the stable name tasks are owned by.
	Owner string
}

// ErrUnauthenticated is returned when a request carries no valid credential.
var ErrUnauthenticated = errors.New("missing or invalid bearer token")

// AnonymousOwner is the single identity of a server running without auth.
// No token's caller may be named so (NewBearer), and a JWT caller's name
// has its own prefix (JWTOwnerPrefix): on a table a token-less local
// server shares, nobody else owns its tasks.
const AnonymousOwner = "anonymous"

// Anonymous admits every request as one identity. Use it only for a local
// server bound to loopback.
type Anonymous struct{}

// Authenticate implements the httpapi authenticator.
func (Anonymous) Authenticate(*http.Request) (Identity, error) {
	return Identity{Owner: AnonymousOwner}, nil
}

// Bearer admits requests whose Authorization header carries one of its
// tokens; the token's name becomes the caller's identity.
type Bearer struct {
	// digests of the tokens, compared in constant time; names parallel.
	digests [][sha256.Size]byte
	names   []string
}

// NewBearer returns an authenticator for tokens, a map of caller name to
// token. It panics on an empty map (a server without tokens uses
// Anonymous) and on a caller named AnonymousOwner (config refuses both
// with a message).
func NewBearer(tokens map[string]string) *Bearer {
	if len(tokens) == 0 {
		panic("auth: NewBearer needs at least one token")
	}
	if _, ok := tokens[AnonymousOwner]; ok {
		panic("auth: the caller name " + AnonymousOwner + " is the identity of a server without tokens")
	}
	b := &Bearer{}
	for name, tok := range tokens {
		b.digests = append(b.digests, sha256.Sum256([]byte(tok)))
		b.names = append(b.names, name)
	}
	return b
}

// Authenticate implements the httpapi authenticator. Every configured token
// is compared, in constant time, whatever matches first.
func (b *Bearer) Authenticate(r *http.Request) (Identity, error) {
	tok, ok := BearerToken(r.Header)
	if !ok {
		return Identity{}, ErrUnauthenticated
	}
	d := sha256.Sum256([]byte(tok))
	match := -1
	for i := range b.digests {
		if subtle.ConstantTimeCompare(d[:], b.digests[i][:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return Identity{}, ErrUnauthenticated
	}
	return Identity{Owner: b.names[match]}, nil
}

// JWTOwnerPrefix starts the owner name of every JWT caller. Bearer caller
// names never contain ':', so a JWT subject can never take over the tasks
// of a bearer caller of the same name (say, after a stack switched modes).
const JWTOwnerPrefix = "jwt:"

// ClaimsSource returns the claims of the JWT that a gateway in front of the
// server verified for r, and false when r carries none. In Lambda the
// source is API Gateway's request context (see pkg/app/httpfn).
type ClaimsSource func(r *http.Request) (map[string]string, bool)

// JWT admits requests whose JWT an API Gateway JWT authorizer already
// verified (issuer, audience, signature, expiry): it only reads the
// verified claims, never the Authorization header, and names the caller
// after the token's sub claim.
type JWT struct {
	claims ClaimsSource
}

// NewJWT returns an authenticator reading the verified claims from src.
func NewJWT(src ClaimsSource) *JWT {
	if src == nil {
		panic("auth: NewJWT needs a claims source")
	}
	return &JWT{claims: src}
}

// Authenticate implements the httpapi authenticator. A request without
// verified claims (the route has no authorizer) or without a subject is
// refused, as is a blank one. A subject is taken exactly as the issuer
// wrote it (RFC 7519 compares StringOrURI values as they are): " alice" is
// not "alice", and does not read alice's tasks.
func (j *JWT) Authenticate(r *http.Request) (Identity, error) {
	claims, ok := j.claims(r)
	if !ok {
		return Identity{}, ErrUnauthenticated
	}
	sub := claims["sub"]
	if strings.TrimSpace(sub) == "" {
		return Identity{}, ErrUnauthenticated
	}
	return Identity{Owner: JWTOwnerPrefix + sub}, nil
}

// BearerToken returns the token of the request's one Authorization header
// as RFC 6750 (section 2.1) defines it: the scheme "Bearer" in any case,
// one or more spaces, and a b64token (letters, digits, "-._~+/", then
// optional "="). A request with two Authorization headers, or a token of
// other characters, has none: which of two credentials counts is exactly
// what a proxy in front and the server could disagree on.
func BearerToken(h http.Header) (string, bool) {
	values := h.Values("Authorization")
	if len(values) != 1 {
		return "", false
	}
	scheme, rest, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok := strings.TrimLeft(rest, " ")
	if !IsB64Token(tok) {
		return "", false
	}
	return tok, true
}

// IsB64Token reports whether s is an RFC 6750 b64token: letters, digits,
// "-._~+/", then optional "=". Only such a token can be sent as a bearer
// credential.
func IsB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}
