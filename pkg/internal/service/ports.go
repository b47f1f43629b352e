package service

import (
	"context"
	"slices"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Store is what the service keeps of tasks (store.Store is all of it):
// the tasks with their push configs, the contexts they share and the
// feedback on them, the interrupt bindings it resolves, and the delivery
// log it shows and redrives.
type Store interface {
	store.TaskStore
	store.PushConfigStore
	// Of store.ContextStore.
	ContextSession(ctx context.Context, owner, contextID string) (string, error)
	ListContexts(ctx context.Context, q store.ContextQuery) (store.ContextPage, error)
	ClearContext(ctx context.Context, owner, contextID string) error
	SetFeedback(ctx context.Context, taskID string, f store.Feedback) error
	// Of store.InterruptStore.
	GetInterrupt(ctx context.Context, requestID string) (*store.InterruptBinding, error)
	ResolveInterrupt(ctx context.Context, requestID string, u store.Update) (int64, error)
	ListInterrupts(ctx context.Context, owner string) ([]store.InterruptBinding, error)
	// Of store.DeliveryLog.
	ListDeliveries(ctx context.Context, q store.DeliveryQuery) (store.DeliveryPage, error)
	RedriveDelivery(ctx context.Context, taskID, configID string, version int64) (*store.Delivery, error)
}

// InlineRunner runs a blocking send's steps in the send's own request
// (pkg/internal/runner/inline is one), from the first step of a new task that is
// not stored yet: that step stores it (see engine.Unsaved).
type InlineRunner interface {
	// StartUnsaved runs u's steps as the runner's Start runs a blocking
	// job's. It returns once they are done or handed over; a returned
	// error means the work was not scheduled.
	StartUnsaved(ctx context.Context, u *engine.Unsaved) error
}

// Files keeps the content parts too large for a task item in an object
// store, under a2a-file: URIs that reads show as presigned URLs (pkg/internal/files
// implements it). The service passes every message through it before the
// task store (the executor does the same with the agent's output, see
// engine.Files), so that every store holds the same small items; without
// it (nil), parts stay inline and a store refuses what it cannot hold.
type Files interface {
	// Accept readies a client's parts (at path in the request): a part
	// naming one of the caller's files is checked (an *a2a.Error names
	// what is wrong), and a part above the inline limit is stored. It
	// returns the parts and the keys of the objects it stored, for Discard
	// when the parts are not stored.
	Accept(ctx context.Context, owner, path string, parts []a2a.Part) ([]a2a.Part, []string, error)
	// Discard deletes the objects of keys, whose parts were not stored.
	Discard(ctx context.Context, keys []string)
	// PresignTask returns t (not changed) with its kept files named by
	// presigned URLs.
	PresignTask(ctx context.Context, t *a2a.Task) *a2a.Task
	// CreateUpload implements files/createUpload.
	CreateUpload(ctx context.Context, owner string, p a2a.FileUploadParams) (*a2a.FileUploadResult, error)
}

// withHistory returns a copy of rec with at most historyLength of its
// messages, the latest (negative: all).
func withHistory(rec *store.TaskRecord, historyLength int) *store.TaskRecord {
	c := *rec
	t := &c.Task
	if historyLength >= 0 && len(t.History) > historyLength {
		t.History = t.History[len(t.History)-historyLength:]
	}
	t.History = slices.Clone(t.History)
	t.Artifacts = slices.Clone(t.Artifacts)
	return &c
}
