package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBearer(t *testing.T) {
	b := NewBearer(map[string]string{"alice": "a-token", "bob": "b-token"})
	tests := []struct {
		header string
		owner  string
		ok     bool
	}{
		{"Bearer a-token", "alice", true},
		{"bearer b-token", "bob", true},  // RFC 7235: the scheme is case-insensitive
		{"BEARER  b-token", "bob", true}, // RFC 6750: "Bearer" 1*SP b64token
		{"Bearer c-token", "", false},
		{"Bearer ", "", false},
		{"Bearer a-token x", "", false},
		{"Bearer a-token\t", "", false},
		{"Bearer\ta-token", "", false},
		{"Bearer a-tok\u00e9n", "", false},
		{"Bearer=a-token", "", false},
		{"Basic a-token", "", false},
		{"a-token", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		id, err := b.Authenticate(r)
		if !tt.ok {
			assert.ErrorIs(t, err, ErrUnauthenticated, tt.header)
			continue
		}
		assert.NoError(t, err, tt.header)
		assert.Equal(t, tt.owner, id.Owner)
	}
	assert.Panics(t, func() { NewBearer(nil) })

	// Two Authorization headers are refused, even when both are valid: a
	// proxy in front may have read the other one.
	for _, headers := range [][]string{{"Bearer a-token", "Bearer b-token"}, {"Bearer a-token", "Bearer a-token"}, {"Basic eA==", "Bearer a-token"}} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, h := range headers {
			r.Header.Add("Authorization", h)
		}
		_, err := b.Authenticate(r)
		assert.ErrorIs(t, err, ErrUnauthenticated, headers)
	}
}

func TestAnonymous(t *testing.T) {
	id, err := Anonymous{}.Authenticate(httptest.NewRequest("GET", "/", nil))
	assert.NoError(t, err)
	assert.Equal(t, AnonymousOwner, id.Owner)
}

func TestJWT(t *testing.T) {
	tests := []struct {
		name   string
		claims map[string]string
		found  bool
		owner  string
	}{
		{"subject", map[string]string{"sub": "user-42", "iss": "https://issuer.example.com"}, true, "jwt:user-42"},
		{"subject looking like a bearer caller", map[string]string{"sub": "default"}, true, "jwt:default"},
		{"no subject", map[string]string{"iss": "https://issuer.example.com"}, true, ""},
		{"blank subject", map[string]string{"sub": "  "}, true, ""},
		// Subjects are compared exactly: padding names another caller.
		{"subject with a leading space", map[string]string{"sub": " user-42"}, true, "jwt: user-42"},
		{"subject with a trailing space", map[string]string{"sub": "user-42 "}, true, "jwt:user-42 "},
		{"subject in another case", map[string]string{"sub": "User-42"}, true, "jwt:User-42"},
		{"subject named anonymous", map[string]string{"sub": AnonymousOwner}, true, "jwt:anonymous"},
		{"no verified token", nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := NewJWT(func(*http.Request) (map[string]string, bool) { return tt.claims, tt.found })
			r := httptest.NewRequest("GET", "/", nil)
			// The header is API Gateway's business: a forged one changes nothing.
			r.Header.Set("Authorization", "Bearer forged")
			id, err := j.Authenticate(r)
			if tt.owner == "" {
				assert.ErrorIs(t, err, ErrUnauthenticated)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.owner, id.Owner)
		})
	}
	assert.Panics(t, func() { NewJWT(nil) })
}

// No bearer caller is anonymous, the owner of a token-less server's tasks.
func TestBearerCannotBeAnonymous(t *testing.T) {
	assert.Panics(t, func() { NewBearer(map[string]string{AnonymousOwner: "0123456789abcdef"}) })
}
