package auth

import (
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
		{"bearer b-token", "bob", true},
		{"BEARER  b-token ", "bob", true},
		{"Bearer c-token", "", false},
		{"Bearer ", "", false},
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
}

func TestAnonymous(t *testing.T) {
	id, err := Anonymous{}.Authenticate(httptest.NewRequest("GET", "/", nil))
	assert.NoError(t, err)
	assert.Equal(t, AnonymousOwner, id.Owner)
}
