// Package storetest is the contract of store.TaskStore: one suite that
// every store (memory, DynamoDB) runs, so that they behave alike.
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, o storetest.Options) store.TaskStore {
//			return memory.New(memory.Options{Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
//		})
//	}
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Options configure a store under test. The store MUST read the time from
// Clock and keep tasks TaskTTL after their last update and idempotency
// records IdempotencyTTL after they were written.
type Options struct {
	Clock          *clocktest.Clock
	TaskTTL        time.Duration
	IdempotencyTTL time.Duration
}

// Factory returns a new, empty store configured with o. Run calls it once per
// subtest.
type Factory func(t *testing.T, o Options) store.Store

// The settings the suite runs stores with.
const (
	TaskTTL        = time.Hour
	IdempotencyTTL = 30 * time.Minute
)

// Run runs the contract against stores made by newStore.
func Run(t *testing.T, newStore Factory) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s *suite)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"CreateNeedsOneMessage", testCreateNeedsOneMessage},
		{"GetUnknown", testGetUnknown},
		{"IdempotentCreate", testIdempotentCreate},
		{"DuplicateSaysWhichSend", testDuplicateSaysWhichSend},
		{"HistoryAndArtifactsRead", testHistoryAndArtifactsRead},
		{"MessagesThenStatusMessage", testMessagesThenStatusMessage},
		{"StaleVersion", testStaleVersion},
		{"IfStates", testIfStates},
		{"TerminalIsFinal", testTerminalIsFinal},
		{"UpdateUnknown", testUpdateUnknown},
		{"Artifacts", testArtifacts},
		{"CheckpointAndRequestMetadata", testCheckpointAndRequestMetadata},
		{"ExecutionARN", testExecutionARN},
		{"FinishWithArtifacts", testFinishWithArtifacts},
		{"FirstTerminalStateWins", testFirstTerminalStateWins},
		{"TaskExpiry", testTaskExpiry},
		{"IdempotencyExpiry", testIdempotencyExpiry},
		{"IdempotentUpdate", testIdempotentUpdate},
		{"List", testList},
		{"ListTies", testListTies},
		{"ListReadsHistoryAndArtifacts", testListReadsHistoryAndArtifacts},
		{"ListBadCursor", testListBadCursor},
		{"Oversized", testOversized},
		{"PendingInterrupt", testPendingInterrupt},
		{"ActivateInterrupt", testActivateInterrupt},
		{"ResolveInterrupt", testResolveInterrupt},
		{"ResolveIsAtomic", testResolveIsAtomic},
		{"ResolveOnce", testResolveOnce},
		{"InterruptExpiry", testInterruptExpiry},
		{"InterruptWindowsToTheSecond", testInterruptWindowsToTheSecond},
		{"ListInterrupts", testListInterrupts},
		{"PushConfigs", testPushConfigs},
		{"PushConfigsOfUnknownTask", testPushConfigsOfUnknownTask},
		{"PushConfigLimit", testPushConfigLimit},
		{"PushConfigsWithNewTask", testPushConfigsWithNewTask},
		{"PushConfigsLiveWithTheirTask", testPushConfigsLiveWithTheirTask},
		{"DeliveryLog", testDeliveryLog},
		{"DeliveryPages", testDeliveryPages},
		{"DeliveryAttemptsBounded", testDeliveryAttemptsBounded},
		{"RedriveDelivery", testRedriveDelivery},
		{"DeliveriesLiveWithTheirTask", testDeliveriesLiveWithTheirTask},
		{"Contexts", testContexts},
		{"ListContexts", testListContexts},
		{"ClearContext", testClearContext},
		{"ContextExpiry", testContextExpiry},
		{"ContextFollowsItsTasks", testContextFollowsItsTasks},
		{"Feedback", testFeedback},
		{"CreateFinished", testCreateFinished},
		{"Inbox", testInbox},
		{"InboxTakenOnce", testInboxTakenOnce},
		{"InboxUnderContention", testInboxUnderContention},
		{"InboxExpiry", testInboxExpiry},
		{"LeaseLifecycle", testLeaseLifecycle},
		{"LeaseEndsWithTheRun", testLeaseEndsWithTheRun},
		{"LapsedLeases", testLapsedLeases},
		{"TakeOver", testTakeOver},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := clocktest.Start(t)
			clock := clocktest.New(start)
			s := &suite{
				t:     t,
				ctx:   context.Background(),
				start: start,
				clock: clock,
				store: newStore(t, Options{Clock: clock, TaskTTL: TaskTTL, IdempotencyTTL: IdempotencyTTL}),
			}
			tc.run(t, s)
		})
	}
}

// suite holds one subtest's store and clock, with helpers.
type suite struct {
	t     *testing.T
	ctx   context.Context
	start time.Time // where clock started
	clock *clocktest.Clock
	store store.Store
}

func (s *suite) now() string { return a2a.FormatTime(s.clock.Now()) }

func userMessage(id, text string) a2a.Message {
	return a2a.Message{Role: a2a.RoleUser, MessageID: id, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func agentMessage(taskID, id, text string) *a2a.Message {
	return &a2a.Message{Role: a2a.RoleAgent, MessageID: id, TaskID: taskID, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func textArtifact(id string, texts ...string) a2a.Artifact {
	a := a2a.Artifact{ArtifactID: id, Name: "artifact " + id}
	for _, x := range texts {
		a.Parts = append(a.Parts, a2a.TextPart(x))
	}
	return a
}

// newTask is a submitted task whose first message is msgID, stamped now.
func (s *suite) newTask(owner, taskID, contextID, msgID string) store.NewTask {
	m := userMessage(msgID, "hello from "+msgID)
	m.TaskID, m.ContextID = taskID, contextID
	return store.NewTask{
		Owner: owner,
		Task: a2a.Task{
			ID:        taskID,
			ContextID: contextID,
			Status:    a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: s.now()},
			History:   []a2a.Message{m},
		},
	}
}

// create stores a new task of owner "alice" and returns it.
func (s *suite) create(taskID string) store.NewTask {
	s.t.Helper()
	nt := s.newTask("alice", taskID, "ctx-"+taskID, "m-"+taskID)
	require.NoError(s.t, s.store.CreateTask(s.ctx, nt))
	return nt
}

func (s *suite) get(taskID string, opts store.GetOptions) *store.TaskRecord {
	s.t.Helper()
	rec, err := s.store.GetTask(s.ctx, taskID, opts)
	require.NoError(s.t, err)
	require.NotNil(s.t, rec)
	return rec
}

func (s *suite) update(u store.Update) int64 {
	s.t.Helper()
	v, err := s.store.UpdateTask(s.ctx, u)
	require.NoError(s.t, err)
	return v
}

// status is a status of state stamped now, with an optional message.
func (s *suite) status(state a2a.TaskState, msg *a2a.Message) *a2a.TaskStatus {
	return &a2a.TaskStatus{State: state, Message: msg, Timestamp: s.now()}
}

func messageIDs(ms []a2a.Message) []string {
	ids := []string{}
	for _, m := range ms {
		ids = append(ids, m.MessageID)
	}
	return ids
}

func artifactIDs(as []a2a.Artifact) []string {
	ids := []string{}
	for _, a := range as {
		ids = append(ids, a.ArtifactID)
	}
	return ids
}

// jsonEqual compares values by their JSON encoding: stores may keep JSON,
// which turns numbers into json.Number and compacts raw messages.
func jsonEqual(t *testing.T, want, got any, msgAndArgs ...any) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g), msgAndArgs...)
}

// requireConflict asserts err is a *store.ConflictError with reason,
// state and version.
func requireConflict(t *testing.T, err error, reason store.ConflictReason, state a2a.TaskState, version int64) {
	t.Helper()
	var ce *store.ConflictError
	require.ErrorAs(t, err, &ce, "want a %s conflict, got %v", reason, err)
	assert.Equal(t, reason, ce.Reason, "conflict reason")
	assert.Equal(t, state, ce.State, "conflict state")
	assert.Equal(t, version, ce.Version, "conflict version")
}

func requireDuplicate(t *testing.T, err error, taskID string) {
	t.Helper()
	var de *store.DuplicateError
	require.ErrorAs(t, err, &de, "want a duplicate, got %v", err)
	assert.Equal(t, taskID, de.TaskID)
}

func requireTooLarge(t *testing.T, err error) {
	t.Helper()
	var tl *store.TooLargeError
	require.ErrorAs(t, err, &tl, "want a TooLargeError, got %v", err)
	assert.ErrorIs(t, err, store.ErrTooLarge)
	assert.Equal(t, store.MaxContentBytes, tl.Limit)
}

func id(prefix string, i int) string { return fmt.Sprintf("%s-%02d", prefix, i) }
