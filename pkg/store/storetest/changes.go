package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// ChangeFactory returns a new, empty store configured with o, and a function
// that returns the task changes the store reported since it was last called
// (store.TaskChange: the memory store's OnChange, the DynamoDB store's
// stream read through dynamo.ChangeFromStream).
type ChangeFactory func(t *testing.T, o Options) (store.Store, func() []store.TaskChange)

// RunChanges runs the change part of the contract: which writes are
// reported to push notifications, and with what. Every store reports the
// same changes for the same writes.
func RunChanges(t *testing.T, newStore ChangeFactory) {
	start := clocktest.Start(t)
	clock := clocktest.New(start)
	ts, changes := newStore(t, Options{Clock: clock, TaskTTL: TaskTTL, IdempotencyTTL: IdempotencyTTL})
	s := &suite{t: t, ctx: context.Background(), start: start, clock: clock, store: ts}

	type want struct {
		version   int64
		state     a2a.TaskState
		status    bool
		artifacts []string
		configs   []string
		text      string
	}
	expect := func(step string, wants ...want) {
		t.Helper()
		got := changes()
		require.Len(t, got, len(wants), "%s: changes %+v", step, got)
		for i, w := range wants {
			c := got[i]
			assert.Equal(t, "t1", c.Task.ID, step)
			assert.Equal(t, "ctx-t1", c.Task.ContextID, step)
			assert.Equal(t, w.version, c.Version, step)
			assert.Equal(t, w.state, c.Task.Status.State, step)
			assert.Equal(t, w.status, c.StatusChanged, "%s: status changed", step)
			assert.Equal(t, w.artifacts, c.ArtifactIDs, "%s: artifacts", step)
			assert.Equal(t, w.configs, c.PushConfigIDs, "%s: configs", step)
			assert.Equal(t, "session-t1", c.SessionID, "%s: session", step)
			assert.Empty(t, c.Task.History, "%s: a change carries no history", step)
			assert.Empty(t, c.Task.Artifacts, "%s: nor artifacts, only their ids", step)
			if w.text != "" {
				require.NotNil(t, c.Task.Status.Message, step)
				assert.Equal(t, w.text, c.Task.Status.Message.Parts[0].Text, step)
			}
		}
	}

	nt := s.newTask("alice", "t1", "ctx-t1", "m-t1")
	nt.SessionID = "session-t1"
	nt.PushConfigs = []store.PushConfig{s.pushConfig("t1", "inline")}
	require.NoError(t, ts.CreateTask(s.ctx, nt))
	s.putConfig(s.pushConfig("t1", "added"))
	expect("a new task and its configs are not changes")

	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "s1", "Counting 1"))})
	expect("a status", want{version: 2, state: a2a.TaskStateWorking, status: true, configs: []string{"added", "inline"}, text: "Counting 1"})

	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("a1", "1")}, AppendArtifact: true})
	s.update(store.Update{TaskID: "t1", Checkpoint: []byte(`{"n":1}`)})
	expect("an artifact chunk and a checkpoint are not changes")

	require.NoError(t, ts.DeletePushConfig(s.ctx, "t1", "added"))
	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("a1", "2"), textArtifact("a1", "3")}, AppendArtifact: true, ArtifactLastChunk: true})
	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("a3", "first chunk")}})
	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("a2", "whole")}, ArtifactLastChunk: true})
	expect("completed artifacts; a first chunk is not",
		want{version: 5, state: a2a.TaskStateWorking, artifacts: []string{"a1"}, configs: []string{"inline"}},
		want{version: 7, state: a2a.TaskStateWorking, artifacts: []string{"a2"}, configs: []string{"inline"}})

	q := agentMessage("t1", "q1", "Which colour?")
	p := &store.PendingInterrupt{RequestID: "r1", Type: a2a.InterruptQuestion, State: a2a.TaskStateInputRequired, Message: q}
	s.update(store.Update{TaskID: "t1", Pending: p})
	expect("a pending interrupt is not shown yet")
	b := s.binding(nt, p, "token")
	_, err := ts.ActivateInterrupt(s.ctx, b, s.now())
	require.NoError(t, err)
	expect("an activated interrupt", want{version: 9, state: a2a.TaskStateInputRequired, status: true, configs: []string{"inline"}, text: "Which colour?"})

	_, err = ts.ResolveInterrupt(s.ctx, "r1", s.reply("t1", 9, "m-reply"))
	require.NoError(t, err)
	expect("a resolved interrupt", want{version: 10, state: a2a.TaskStateWorking, status: true, configs: []string{"inline"}, text: "Reply received."})

	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	expect("a step that starts, working again without a message, is not a change")

	_, err = ts.UpdateTask(s.ctx, store.Update{TaskID: "t1", IfVersion: 3, Status: s.status(a2a.TaskStateFailed, nil)})
	requireConflict(t, err, store.ConflictVersion, a2a.TaskStateWorking, 11)
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCompleted, agentMessage("t1", "done", "Done."))})
	_, err = ts.UpdateTask(s.ctx, store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCanceled, nil)})
	requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, 12)
	expect("refused writes are not changes", want{version: 12, state: a2a.TaskStateCompleted, status: true, configs: []string{"inline"}, text: "Done."})

	// A task without webhooks has nobody to tell: none of its writes is a
	// change (the push function's stream filter also drops them).
	quiet := s.newTask("alice", "t2", "ctx-t2", "m-t2")
	require.NoError(t, ts.CreateTask(s.ctx, quiet))
	s.update(store.Update{TaskID: "t2", Status: s.status(a2a.TaskStateWorking, agentMessage("t2", "s2", "Counting 1"))})
	s.update(store.Update{TaskID: "t2", Artifacts: []a2a.Artifact{textArtifact("a1", "whole")}, ArtifactLastChunk: true})
	s.update(store.Update{TaskID: "t2", Status: s.status(a2a.TaskStateCompleted, agentMessage("t2", "done2", "Done."))})
	expect("a task without push configs")
}
