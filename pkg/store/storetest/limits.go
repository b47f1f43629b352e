package storetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Content above store.MaxContentBytes is refused with a
// *store.TooLargeError, and nothing is written. Content is measured as
// it is stored, JSON escapes included (DynamoDB counts the bytes it is
// sent): 200 KB of '"' take 400 KB, 70 KB of '<' 420 KB (\u003c); what
// fits once escaped is kept, and so are artifacts that fit one by one,
// whatever they take together.
func testOversized(t *testing.T, s *suite) {
	big := strings.Repeat("x", store.MaxContentBytes+1)
	half := strings.Repeat("y", store.MaxContentBytes/2+1)
	quotes := strings.Repeat(`"`, 200<<10)
	angles := strings.Repeat("<", 70<<10)
	fits := strings.Repeat(`"`, 150<<10) // 300 KB escaped

	t.Run("create", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			modify func(*store.NewTask)
		}{
			{"message", func(nt *store.NewTask) { nt.Task.History[0].Parts = []a2a.Part{a2a.TextPart(big)} }},
			{"request metadata", func(nt *store.NewTask) { nt.RequestMetadata = a2a.Metadata{"blob": big} }},
			{"message of quotes", func(nt *store.NewTask) { nt.Task.History[0].Parts = []a2a.Part{a2a.TextPart(quotes)} }},
			{"message of angle brackets", func(nt *store.NewTask) { nt.Task.History[0].Parts = []a2a.Part{a2a.TextPart(angles)} }},
			{"request metadata of quotes", func(nt *store.NewTask) { nt.RequestMetadata = a2a.Metadata{"blob": quotes} }},
		} {
			nt := s.newTask("alice", "big", "c", "m-big")
			tc.modify(&nt)
			requireTooLarge(t, s.store.CreateTask(s.ctx, nt))
			_, err := s.store.GetTask(s.ctx, "big", store.GetOptions{})
			assert.ErrorIs(t, err, store.ErrNotFound, "%s: a refused task was stored", tc.name)
		}
		// Nothing was recorded for the message id either; 300 KB once
		// escaped fits.
		nt := s.newTask("alice", "big", "c", "m-big")
		nt.Task.History[0].Parts = []a2a.Part{a2a.TextPart(fits)}
		require.NoError(t, s.store.CreateTask(s.ctx, nt))

		// A task created finished with two artifacts of 300 KB each: each
		// fits, and so does the task.
		done := s.newTask("alice", "big-done", "c", "m-big-done")
		done.Task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: s.now()}
		done.Task.Artifacts = []a2a.Artifact{textArtifact("a1", fits), textArtifact("a2", fits)}
		require.NoError(t, s.store.CreateTask(s.ctx, done))
		rec := s.get("big-done", store.AllHistory)
		require.Len(t, rec.Task.Artifacts, 2)
		assert.Equal(t, fits, rec.Task.Artifacts[1].Parts[0].Text)
	})

	t.Run("update", func(t *testing.T) {
		s.create("t1")
		s.update(store.Update{TaskID: "t1", IfVersion: 1, Artifacts: []a2a.Artifact{textArtifact("half", half), textArtifact("quoted", fits)}})
		for _, tc := range []struct {
			name string
			u    store.Update
		}{
			{"message", store.Update{Messages: []a2a.Message{userMessage("u-big", big)}}},
			{"status message", store.Update{Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "s-big", big))}},
			{"artifact", store.Update{Artifacts: []a2a.Artifact{textArtifact("a-big", big)}}},
			{"appended chunks", store.Update{Artifacts: []a2a.Artifact{textArtifact("half", half)}, AppendArtifact: true}},
			{"request metadata", store.Update{RequestMetadata: a2a.Metadata{"blob": big}}},
			{"message of quotes", store.Update{Messages: []a2a.Message{userMessage("u-q", quotes)}}},
			{"status message of angle brackets", store.Update{Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "s-a", angles))}},
			{"artifact of quotes", store.Update{Artifacts: []a2a.Artifact{textArtifact("a-q", quotes)}}},
			{"appended chunks of quotes", store.Update{Artifacts: []a2a.Artifact{textArtifact("quoted", fits)}, AppendArtifact: true}},
			{"request metadata of quotes", store.Update{RequestMetadata: a2a.Metadata{"blob": quotes}}},
			{"interrupt", store.Update{Pending: &store.PendingInterrupt{RequestID: "r-q", Type: a2a.InterruptQuestion, State: a2a.TaskStateInputRequired,
				Message: agentMessage("t1", "q-q", "Which?"), Details: map[string]any{"questions": []any{quotes}}}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u := tc.u
				u.TaskID, u.IfVersion = "t1", 2
				_, err := s.store.UpdateTask(s.ctx, u)
				requireTooLarge(t, err)
			})
		}
		rec := s.get("t1", store.AllHistory)
		assert.Equal(t, int64(2), rec.Version, "a refused update was written")
		assert.Equal(t, []string{"m-t1"}, messageIDs(rec.Task.History))
		require.Len(t, rec.Task.Artifacts, 2)
		assert.Len(t, rec.Task.Artifacts[0].Parts, 1, "the refused chunk was appended")
		assert.Len(t, rec.Task.Artifacts[1].Parts, 1, "the refused chunk was appended")
		assert.Nil(t, rec.RequestMetadata)
		assert.Nil(t, rec.Pending)
	})
}
