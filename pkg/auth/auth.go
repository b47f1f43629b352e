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
// token. It panics on an empty map: a server without tokens uses Anonymous.
func NewBearer(tokens map[string]string) *Bearer {
	if len(tokens) == 0 {
		panic("auth: NewBearer needs at least one token")
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
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return Identity{}, ErrUnauthenticated
	}
	d := sha256.Sum256([]byte(strings.TrimSpace(tok)))
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
