package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// taskWriter persists a step's writes, tracking the task version.
type taskWriter struct {
	x         *Executor
	taskID    string
	contextID string
	// owner is the task's caller, whose files its parts may name.
	owner   string
	version int64
	// runCtx is the context the runner gave the step: once it ends, the
	// step writes nothing more (ErrStepStopped). cancelStep ends the
	// agent's own context.
	runCtx     context.Context
	cancelStep context.CancelFunc
	// leaseOwner names the step in the task's lease; trigger is what
	// started it.
	leaseOwner string
	trigger    store.Trigger
	// leaseLost is set when the step's lease was taken from it.
	leaseLost atomic.Bool
	// finished is set once the task turned out to be terminal.
	finished   bool
	finalState a2a.TaskState

	// mu orders the writes of the step and of the lease keeper.
	mu sync.Mutex
	// acquire, until the first write, is the update that takes the lease
	// (and says working): that write carries it.
	acquire *store.Update
	// unsaved, until the first write, is the task when it is not stored
	// yet (StepUnsaved): that write stores it (see storeUnsaved).
	unsaved *Unsaved
}

var _ agent.Emitter = (*taskWriter)(nil)

// write applies u conditioned on the version last seen. On a version conflict
// (another writer, such as a retried worker) it takes the version the
// refusal reports and tries again, three times at most (update); a
// terminal task stops the step.
func (w *taskWriter) write(ctx context.Context, u store.Update) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(ctx, u)
}

// takeLease writes the step's pending acquire, if it has one, and reports
// whether it had.
func (w *taskWriter) takeLease(ctx context.Context) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.acquire == nil {
		return false, nil
	}
	return true, w.writeLocked(ctx, store.Update{})
}

// writeLocked stores u: the parts too large for the task item first, in
// the file store, which are discarded when the store refuses u.
func (w *taskWriter) writeLocked(ctx context.Context, u store.Update) error {
	if w.stopped() {
		return fmt.Errorf("%w: task %s: %w", ErrStepStopped, w.taskID, context.Cause(w.runCtx))
	}
	kept, err := w.offload(ctx, &u)
	if err != nil {
		return err
	}
	err = w.update(ctx, u)
	if len(kept) > 0 && err != nil && (store.Refused(err) || errors.Is(err, ErrStepStopped)) {
		w.x.files.Discard(ctx, kept)
	}
	return err
}

// offload stores the parts of u's messages and artifacts too large for
// the task item (Files.Offload); u's slices are copied, not changed.
func (w *taskWriter) offload(ctx context.Context, u *store.Update) ([]string, error) {
	fs := w.x.files
	if fs == nil {
		return nil, nil
	}
	var kept []string
	parts := func(ps []a2a.Part) ([]a2a.Part, error) {
		out, k, err := fs.Offload(ctx, w.owner, ps)
		kept = append(kept, k...)
		return out, err
	}
	message := func(m *a2a.Message) (*a2a.Message, error) {
		if m == nil {
			return nil, nil
		}
		c := *m
		var err error
		c.Parts, err = parts(m.Parts)
		return &c, err
	}
	var err error
	if st := u.Status; st != nil && st.Message != nil {
		c := *st
		if c.Message, err = message(st.Message); err != nil {
			return w.offloadFailed(ctx, kept, err)
		}
		u.Status = &c
	}
	if p := u.Pending; p != nil && p.Message != nil {
		c := *p
		if c.Message, err = message(p.Message); err != nil {
			return w.offloadFailed(ctx, kept, err)
		}
		u.Pending = &c
	}
	if len(u.Artifacts) > 0 {
		arts := slices.Clone(u.Artifacts)
		for i := range arts {
			if arts[i].Parts, err = parts(arts[i].Parts); err != nil {
				return w.offloadFailed(ctx, kept, err)
			}
		}
		u.Artifacts = arts
	}
	return kept, nil
}

func (w *taskWriter) offloadFailed(ctx context.Context, kept []string, err error) ([]string, error) {
	w.x.files.Discard(ctx, kept)
	return nil, fmt.Errorf("store the large parts of task %s: %w", w.taskID, err)
}

// update applies u to the task, or stores the task with it when it is not
// stored yet.
func (w *taskWriter) update(ctx context.Context, u store.Update) error {
	u.TaskID = w.taskID
	if w.unsaved != nil {
		if done, err := w.storeUnsaved(ctx, u); done || err != nil {
			return err
		}
	}
	if a := w.acquire; a != nil {
		if u.Status == nil && a.Status != nil {
			st := *a.Status
			st.Timestamp = w.x.now()
			u.Status = &st
		}
		if !u.Lease.Held() && !u.ClearLease {
			u.Lease = w.lease(0) // a whole lease from now
		}
		if u.ExecutionARN == "" {
			u.ExecutionARN = a.ExecutionARN
		}
	}
	for attempt := 0; ; attempt++ {
		u.IfVersion = w.version
		v, err := w.x.store.UpdateTask(ctx, u)
		if err == nil {
			w.version = v
			w.acquire = nil
			return nil
		}
		var ce *store.ConflictError
		if !errors.As(err, &ce) || ce.Reason == store.ConflictTerminal || attempt >= 3 {
			return err
		}
		w.version = ce.Version
	}
}

// storeUnsaved stores the step's task, which is not stored yet: when u
// finishes it (a terminal status and whole artifacts, nothing else), as
// finished, once, which is all u asks (done); otherwise as it was created,
// for u to follow. The finished task is left in the Unsaved for the send
// to answer with. A task that a send of the same message stored first is
// the same task: this step's result is dropped as that of a task finished
// meanwhile, and the store's refusal is left in the Unsaved (Refused), for
// the send to answer with that task.
func (w *taskWriter) storeUnsaved(ctx context.Context, u store.Update) (done bool, err error) {
	nt := w.unsaved.Task
	finishes := u.Status != nil && u.Status.State.Terminal() && len(u.Messages) == 0 && u.Pending == nil &&
		!u.AppendArtifact && u.RequestMetadata == nil && u.Checkpoint == nil && !u.Inbox
	if finishes {
		nt.Task.Status = *u.Status
		nt.Task.History = slices.Clone(nt.Task.History)
		if m := u.Status.Message; m != nil {
			nt.Task.History = append(nt.Task.History, *m)
		}
		nt.Task.Artifacts = a2a.LatestArtifacts(u.Artifacts)
		nt.Lease = store.Lease{}
	}
	err = w.x.store.CreateTask(ctx, nt)
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		w.unsaved.Refused = dup
		return true, &store.ConflictError{Reason: store.ConflictTerminal, State: dup.State()}
	}
	if err != nil {
		return true, err
	}
	w.version = 1
	if finishes {
		w.unsaved.Task = nt
		w.unsaved, w.acquire = nil, nil
		return true, nil
	}
	w.unsaved = nil
	return false, nil
}

// stopped reports whether the runner stopped the step (see ErrStepStopped).
func (w *taskWriter) stopped() bool { return w.runCtx != nil && w.runCtx.Err() != nil }

// finish turns a write error into the step's result: a terminal task ends the
// step quietly, a stopped step is ErrStepStopped, anything else is the store
// failing.
func (w *taskWriter) finish(ctx context.Context, err error) (StepResult, error) {
	var ce *store.ConflictError
	switch {
	case errors.Is(err, ErrStepStopped):
		return StepResult{}, err
	case errors.As(err, &ce) && ce.Reason == store.ConflictTerminal:
		w.x.log.InfoContext(ctx, "task finished while its step ran; step result dropped", "taskId", w.taskID, "state", ce.State)
		return StepResult{Next: NextDone, State: ce.State}, nil
	case errors.Is(err, store.ErrNotFound):
		return StepResult{Next: NextDone}, nil
	case errors.Is(err, store.ErrTooLarge):
		return w.failTooLarge(ctx, err)
	}
	return StepResult{}, fmt.Errorf("store step result of task %s: %w", w.taskID, err)
}

// failTooLarge fails the task when the agent produced more than the store
// can hold, saying so, instead of losing the task. When even that cannot be
// stored (a task not stored yet whose first message is too large) the
// error wraps store.ErrTooLarge.
func (w *taskWriter) failTooLarge(ctx context.Context, cause error) (StepResult, error) {
	msg := w.agentMessage(agent.Text("The agent's output could not be stored: " + cause.Error()))
	err := w.write(ctx, store.Update{Status: &a2a.TaskStatus{State: a2a.TaskStateFailed, Message: msg, Timestamp: w.x.now()}})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		var ce *store.ConflictError
		if !errors.As(err, &ce) {
			return StepResult{}, fmt.Errorf("fail task %s after oversized output: %w", w.taskID, err)
		}
	}
	return StepResult{Next: NextDone, State: a2a.TaskStateFailed}, nil
}

// Status implements agent.Emitter.
func (w *taskWriter) Status(ctx context.Context, msg *a2a.Message) error {
	if w.finished {
		return agent.ErrTaskFinished
	}
	if msg == nil {
		return errors.New("invalid status message: nil")
	}
	if p := validateAgentParts("status message", msg.Parts); p != "" {
		return fmt.Errorf("invalid status message: %s", p)
	}
	if err := w.x.checkOwned(w.owner, msg.Parts); err != nil {
		return fmt.Errorf("invalid status message: %w", err)
	}
	m := w.agentMessage(msg)
	return w.emit(ctx, store.Update{Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Message: m, Timestamp: w.x.now()}})
}

// Artifact implements agent.Emitter.
func (w *taskWriter) Artifact(ctx context.Context, art a2a.Artifact, opts agent.ArtifactOptions) error {
	if w.finished {
		return agent.ErrTaskFinished
	}
	if err := art.Validate("artifact"); err != nil {
		return fmt.Errorf("invalid artifact: %w", err)
	}
	if err := w.x.checkOwned(w.owner, art.Parts); err != nil {
		return fmt.Errorf("invalid artifact: %w", err)
	}
	return w.emit(ctx, store.Update{Artifacts: []a2a.Artifact{art}, AppendArtifact: opts.Append, ArtifactLastChunk: opts.LastChunk})
}

func (w *taskWriter) emit(ctx context.Context, u store.Update) error {
	err := w.write(ctx, u)
	if errors.Is(err, ErrStepStopped) {
		// Nothing the step does is stored any more: the agent stops as it
		// does for a finished task.
		return fmt.Errorf("%w: %w", agent.ErrTaskFinished, err)
	}
	var ce *store.ConflictError
	if errors.As(err, &ce) && ce.Reason == store.ConflictTerminal {
		w.finished, w.finalState = true, ce.State
		w.cancelStep()
		return agent.ErrTaskFinished
	}
	return err
}

// agentMessage completes an agent message with its ids.
func (w *taskWriter) agentMessage(m *a2a.Message) *a2a.Message {
	if m == nil {
		return nil
	}
	c := *m
	c.Role = a2a.RoleAgent
	if c.MessageID == "" {
		c.MessageID = uuid.NewString()
	}
	c.TaskID, c.ContextID = w.taskID, w.contextID
	return &c
}
