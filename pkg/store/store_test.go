package store_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// TaskIDFor names the tasks kept in DynamoDB (and the idempotency records
// at their keys): its value for a message must not change between
// versions.
func TestTaskIDForIsStable(t *testing.T) {
	assert.Equal(t, "ef2eedc6-db8b-8972-9ff9-d56188d065a2", store.TaskIDFor("alice", "m-1"))
	assert.NotEqual(t, store.TaskIDFor("alice", "m-1"), store.TaskIDFor("bob", "m-1"))
	assert.NotEqual(t, store.TaskIDFor("a", "b:c"), store.TaskIDFor("a:b", "c"), "owner and message id are delimited")
}

func TestIsTaskIDFor(t *testing.T) {
	own := store.TaskIDFor("alice", "m-1")
	tests := []struct {
		name, id, owner, messageID string
		want                       bool
	}{
		{"the message's own id", own, "alice", "m-1", true},
		{"another owner's message", own, "bob", "m-1", false},
		{"another message", own, "alice", "m-2", false},
		{"the same UUID in capitals", strings.ToUpper(own), "alice", "m-1", false},
		{"the same UUID as a URN", "urn:uuid:" + own, "alice", "m-1", false},
		{"a random id", "6f1c5a52-3d59-4c36-a1b4-6d2b6a1d1f0e", "alice", "m-1", false},
		{"not a UUID", "task-1", "alice", "m-1", false},
		{"empty", "", "alice", "m-1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, store.IsTaskIDFor(tt.id, tt.owner, tt.messageID))
		})
	}
}
