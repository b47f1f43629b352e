package service

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// A task shows its agent session the same whether its metadata is made for
// it or shared with the other answers about the session.
func TestWithRuntimeMetadata(t *testing.T) {
	done := &a2a.Message{Role: a2a.RoleAgent, MessageID: "m", Parts: []a2a.Part{a2a.TextPart("ok")},
		Metadata: a2a.Metadata{"shared": map[string]any{"usage": map[string]any{"total_tokens": 3}}}}
	tests := []struct {
		name string
		rec  store.TaskRecord
		want a2a.Metadata
	}{
		{"no metadata of its own", store.TaskRecord{SessionID: "s-1"},
			a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "s-1"}}}},
		{"metadata of its own", store.TaskRecord{SessionID: "s-1", Task: a2a.Task{Metadata: a2a.Metadata{"k": "v"}}},
			a2a.Metadata{"k": "v", "shared": map[string]any{"session": map[string]any{"id": "s-1"}}}},
		{"a session of its own in its metadata", store.TaskRecord{SessionID: "s-1", Task: a2a.Task{Metadata: a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "mine"}}}}},
			a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "mine"}}}},
		{"no session", store.TaskRecord{}, nil},
		{"usage of its final answer", store.TaskRecord{SessionID: "s-1", Task: a2a.Task{Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: done}}},
			a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "s-1"}, "usage": map[string]any{"total_tokens": 3}}}},
		{"feedback", store.TaskRecord{SessionID: "s-1", Feedback: &store.Feedback{Rating: 5, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
			a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "s-1"}}, "feedback": map[string]any{"rating": 5, "createdAt": "2026-01-02T03:04:05.000Z"}}},
	}
	var sessions sessionMetadata
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := tc.rec
			assert.Equal(t, tc.want, withRuntimeMetadata(&rec, nil).Metadata, "made for the answer")
			for range 2 { // made for the session, then shared
				rec := tc.rec
				assert.Equal(t, tc.want, withRuntimeMetadata(&rec, &sessions).Metadata, "the session's")
			}
		})
	}
	// Adding usage or feedback copies what it changes: the shared
	// metadata still shows the session alone.
	assert.Equal(t, tests[0].want, sessions.of("s-1"))
}

func TestSessionMetadataIsSharedAndBounded(t *testing.T) {
	var sessions sessionMetadata
	first := sessions.of("s-1")
	assert.Equal(t, reflect.ValueOf(first).Pointer(), reflect.ValueOf(sessions.of("s-1")).Pointer(), "one map per session")
	assert.Equal(t, "s-2", a2a.SessionOf(sessions.of("s-2")))
	for i := range maxSessionMetadata {
		sessions.of("more-" + strconv.Itoa(i))
	}
	require.LessOrEqual(t, len(sessions.m), maxSessionMetadata)
	assert.Equal(t, "s-1", a2a.SessionOf(sessions.of("s-1")), "made again once forgotten")
}
