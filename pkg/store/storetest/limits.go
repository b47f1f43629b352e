package storetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Content above service.MaxContentBytes is refused with a
// *service.TooLargeError, and nothing is written.
func testOversized(t *testing.T, s *suite) {
	big := strings.Repeat("x", service.MaxContentBytes+1)
	half := strings.Repeat("y", service.MaxContentBytes/2+1)

	t.Run("create", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			modify func(*service.NewTask)
		}{
			{"message", func(nt *service.NewTask) { nt.Task.History[0].Parts = []a2a.Part{a2a.TextPart(big)} }},
			{"request metadata", func(nt *service.NewTask) { nt.RequestMetadata = a2a.Metadata{"blob": big} }},
		} {
			nt := s.newTask("alice", "big", "c", "m-big")
			tc.modify(&nt)
			requireTooLarge(t, s.store.CreateTask(s.ctx, nt))
			_, err := s.store.GetTask(s.ctx, "big", service.GetOptions{})
			assert.ErrorIs(t, err, service.ErrNotFound, "%s: a refused task was stored", tc.name)
		}
		// Nothing was recorded for the message id either.
		require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("alice", "big", "c", "m-big")))
	})

	t.Run("update", func(t *testing.T) {
		s.create("t1")
		s.update(service.Update{TaskID: "t1", IfVersion: 1, Artifacts: []a2a.Artifact{textArtifact("half", half)}})
		for _, tc := range []struct {
			name string
			u    service.Update
		}{
			{"message", service.Update{Messages: []a2a.Message{userMessage("u-big", big)}}},
			{"status message", service.Update{Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "s-big", big))}},
			{"artifact", service.Update{Artifacts: []a2a.Artifact{textArtifact("a-big", big)}}},
			{"appended chunks", service.Update{Artifacts: []a2a.Artifact{textArtifact("half", half)}, AppendArtifact: true}},
			{"request metadata", service.Update{RequestMetadata: a2a.Metadata{"blob": big}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u := tc.u
				u.TaskID, u.IfVersion = "t1", 2
				_, err := s.store.UpdateTask(s.ctx, u)
				requireTooLarge(t, err)
			})
		}
		rec := s.get("t1", service.AllHistory)
		assert.Equal(t, int64(2), rec.Version, "a refused update was written")
		assert.Equal(t, []string{"m-t1"}, messageIDs(rec.Task.History))
		require.Len(t, rec.Task.Artifacts, 1)
		assert.Len(t, rec.Task.Artifacts[0].Parts, 1, "the refused chunk was appended")
		assert.Nil(t, rec.RequestMetadata)
	})
}
