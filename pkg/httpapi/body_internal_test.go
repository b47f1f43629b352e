package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHasSnakeKey(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"message_id":"x"}`:                    true,
		`{"a":{"history_length" : 1}}`:          true,
		`{"role":"ROLE_USER"}`:                  false,
		`{"state":"TASK_STATE_WORKING"}`:        false,
		`{"text":"a_b\":c"}`:                    false,
		`{"k\"_":1}`:                            true,
		`["a_b"]`:                               false,
		`{"plain":1}`:                           false,
		`{"metadata":{"x":"y"},"page_token":1}`: true,
	} {
		assert.Equal(t, want, hasSnakeKey([]byte(raw)), raw)
	}
}
