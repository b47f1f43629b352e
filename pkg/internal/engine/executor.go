package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// maxCheckpointBytes bounds the agent state stored between steps (no
// setting: the task item's room decides it).
const maxCheckpointBytes = 64 << 10

// LeaseSweepLimit bounds the lapsed leases one sweep handles.
const LeaseSweepLimit = 25

// maxUpdateAttempts bounds the reads and writes of an action whose
// conditional write keeps finding the task moved.
const maxUpdateAttempts = 5

// Executor runs agent steps against the task store. Every runner (local
// goroutines, inline, the Step Functions worker) drives the same Executor,
// which is what makes their observable task histories identical.
type Executor struct {
	store Store
	agent agent.Agent
	// info is the agent's description, read once.
	info         agent.Info
	clock        clock.Clock
	log          *slog.Logger
	interruptTTL time.Duration
	tombstoneTTL time.Duration
	lease        time.Duration
	maxTakeovers int
	// owner names this executor's steps in their leases. It is made at
	// the first step: a process's first random number costs it tens of
	// microseconds, which a start-up need not spend.
	owner  func() string
	keeper leaseKeeper
	files  Files
}

// Options configure an Executor. A zero InterruptTTL, LeaseDuration or
// MaxTakeovers takes the configuration's default (config.DefaultInterruptTTL,
// config.DefaultLeaseDuration, config.DefaultMaxTakeovers), which the
// configuration never passes as zero; a zero InterruptTombstoneTTL means no
// tombstone window (A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS=0): a reply
// after the interrupt's window is told it was not found.
type Options struct {
	Clock                 clock.Clock
	Logger                *slog.Logger
	InterruptTTL          time.Duration
	InterruptTombstoneTTL time.Duration
	// LeaseDuration is how long a step holds its task without renewing
	// (see store.Lease); MaxTakeovers how many times a task whose lease lapsed
	// is taken over before it is failed.
	LeaseDuration time.Duration
	MaxTakeovers  int
	// Files keeps the parts of the agent's output too large for a task
	// item, and gives the agent the content of file parts (StepInput.Files);
	// nil keeps none.
	Files Files
}

// NewExecutor returns an executor of ag's steps on store.
func NewExecutor(store Store, ag agent.Agent, opts Options) *Executor {
	x := &Executor{store: store, agent: ag, info: ag.Info(), clock: clock.Or(opts.Clock), log: opts.Logger,
		interruptTTL: opts.InterruptTTL, tombstoneTTL: opts.InterruptTombstoneTTL, lease: opts.LeaseDuration, maxTakeovers: opts.MaxTakeovers, files: opts.Files}
	x.log = cmp.Or(x.log, slog.New(slog.DiscardHandler))
	x.interruptTTL = positive.Or(x.interruptTTL, config.DefaultInterruptTTL)
	x.tombstoneTTL = max(x.tombstoneTTL, 0)
	x.lease = positive.Or(x.lease, config.DefaultLeaseDuration)
	x.maxTakeovers = positive.Or(x.maxTakeovers, config.DefaultMaxTakeovers)
	x.owner = sync.OnceValue(func() string { return "step-" + uuid.NewString() })
	return x
}

// Step runs one agent step of a task and persists what it produced. An error
// means the step's result could not be stored (the store failed); agent
// failures are not errors, they fail the task.
func (x *Executor) Step(ctx context.Context, job Job) (StepResult, error) {
	return x.step(ctx, job, nil)
}

// StepUnsaved runs the first step of u's task, which is not stored yet, as
// Step does: the step's first write stores the task (see Unsaved), and an
// error wrapping store.ErrTooLarge says that even the task as created
// could not be stored.
func (x *Executor) StepUnsaved(ctx context.Context, u *Unsaved) (StepResult, error) {
	return x.step(ctx, u.Job(), u)
}

func (x *Executor) step(ctx context.Context, req Job, u *Unsaved) (StepResult, error) {
	rec, err := x.load(ctx, req.TaskID, u)
	if errors.Is(err, store.ErrNotFound) {
		x.log.WarnContext(ctx, "step for a task that no longer exists", "taskId", req.TaskID)
		return StepResult{Next: NextDone}, nil
	}
	if err != nil {
		return StepResult{}, fmt.Errorf("load task %s: %w", req.TaskID, err)
	}
	state := rec.Task.Status.State
	switch {
	case state.Terminal():
		return StepResult{Next: NextDone, State: state}, nil
	case rec.Pending != nil:
		// A repeated step (a retried invocation) after the step that asked
		// for the interrupt: nothing to run, the interrupt awaits activation.
		return awaitResult(rec.Pending.State, rec.Pending.RequestID, rec.Pending.Type, time.Time{}), nil
	case state.Interrupted() && req.Message == nil && req.Reply == nil:
		// A stray continue for a task that waits for its client.
		return StepResult{Next: NextAwait, State: state}, nil
	}
	stepCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &taskWriter{x: x, taskID: rec.Task.ID, contextID: rec.Task.ContextID, owner: rec.Owner, version: rec.Version, leaseOwner: x.owner(), trigger: stepTrigger(&req),
		runCtx: ctx, cancelStep: cancel}
	// The step takes the task's lease, with its first write when the task
	// starts working, and records the execution it runs in.
	acquire := store.Update{Lease: w.lease(0)}
	if req.ExecutionARN != rec.ExecutionARN {
		acquire.ExecutionARN = req.ExecutionARN
	}
	if state != a2a.TaskStateWorking {
		acquire.Status = &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: x.now()}
	}
	w.unsaved = u
	if u != nil || (req.LeaseLater && x.acquireLater(rec)) {
		// The first step of a new task, whose lease waits for a runner
		// and lasts long enough: the step's first write takes the lease
		// and says working, so a step that finishes at once writes the
		// task once (see taskWriter.write). The lease keeper writes it
		// first if the step runs long.
		w.acquire = &acquire
	} else if err := w.write(ctx, acquire); err != nil {
		return w.finish(ctx, err)
	}
	if acquire.Status != nil {
		rec.Task.Status = *acquire.Status
	}

	var inbox []a2a.Message
	if rec.Inbox > 0 {
		// Messages the client sent while the task worked: each goes to
		// exactly one step, the next one.
		if inbox, err = x.store.TakeInbox(ctx, rec.Task.ID); err != nil {
			return StepResult{}, fmt.Errorf("take the inbox of task %s: %w", rec.Task.ID, err)
		}
	}
	if req.Message == nil && (req.Trigger == store.TriggerMessage || req.Trigger == store.TriggerReply) {
		req.Message = triggerMessage(rec.Task.History, req.Trigger, inbox)
		if req.Trigger == store.TriggerReply && req.Reply == nil {
			req.Reply = replyFromStatus(rec.Task.Status.Message)
		}
	}
	in := agent.StepInput{
		Task:           rec.Task,
		Message:        req.Message,
		Reply:          req.Reply,
		Checkpoint:     rec.Checkpoint,
		Metadata:       a2a.WithSession(rec.RequestMetadata, rec.SessionID),
		ContextHistory: x.contextHistory(ctx, rec),
		Inbox:          inbox,
	}
	if x.files != nil {
		in.Files = x.files.ForOwner(rec.Owner)
	}
	x.keeper.hold(x, w)
	logfields.AddTask(ctx, rec.Task.ID, rec.Task.ContextID)
	stepStart := x.clock.Now()
	spanCtx, span := tracing.Start(stepCtx, "agent step", "")
	out, agentErr := x.runAgent(spanCtx, in, w)
	span.End(agentErr)
	metrics.From(ctx).Add(metrics.StepDuration, metrics.UnitMilliseconds, float64(x.clock.Now().Sub(stepStart).Microseconds())/1000, metrics.DimAgent, x.info.Name)
	lost := x.keeper.release(w)
	if w.finished {
		return StepResult{Next: NextDone, State: w.finalState}, nil
	}
	if lost {
		x.log.InfoContext(ctx, "the task was taken over while its step ran; step result dropped", "taskId", rec.Task.ID)
		return StepResult{Next: NextDone, State: a2a.TaskStateWorking}, nil
	}
	if ctx.Err() != nil {
		// The runner stopped the step (its budget was spent, the process
		// stops): whatever the agent made of its ended context, an error
		// or an outcome, is not the task's result. Nothing is written; the
		// task keeps its lease for the runner it is handed to, or a sweep.
		x.log.InfoContext(ctx, "agent step stopped", "taskId", rec.Task.ID, "reason", context.Cause(ctx))
		return StepResult{}, fmt.Errorf("%w: task %s: %w", ErrStepStopped, rec.Task.ID, context.Cause(ctx))
	}
	if agentErr != nil {
		if errors.Is(agentErr, agent.ErrTaskFinished) {
			return w.finish(ctx, &store.ConflictError{Reason: store.ConflictTerminal})
		}
		x.log.WarnContext(ctx, "agent step failed", "taskId", rec.Task.ID, "error", agentErr)
		out = agent.Fail(agent.Text("The agent failed: " + agentErr.Error()))
	}
	res, err := x.applyOutcome(ctx, w, out)
	if errors.Is(err, ErrStepStopped) {
		return StepResult{}, err
	}
	if err == nil {
		x.observe(ctx, res.State)
		if res.Next != NextDone {
			res.Version = w.version
		}
	}
	return res, err
}

// HandOver stores the new task of a step that was stopped (ErrStepStopped)
// before its first write stored it (StepUnsaved): working, with a lease
// that no step holds yet, so that the runner the step is handed to takes
// it, or a sweep takes the task over once it lapses. A task stored
// meanwhile (by the step, or a retried send of its message) is left as it
// is.
func (x *Executor) HandOver(ctx context.Context, u *Unsaved) error {
	t := u.Task
	t.Task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: x.now()}
	t.Lease = store.Lease{Until: x.clock.Now().Add(x.lease), Trigger: store.TriggerMessage}
	err := x.store.CreateTask(ctx, t)
	var dup *store.DuplicateError
	if err != nil && !errors.As(err, &dup) {
		return fmt.Errorf("store handed-over task %s: %w", t.Task.ID, err)
	}
	return nil
}

// observe counts a task reaching state through this executor: a terminal
// state, or input-required (an interrupt asked).
func (x *Executor) observe(ctx context.Context, state a2a.TaskState) {
	name := x.info.Name
	metrics.TaskState(ctx, name, state)
	if state.Interrupted() {
		metrics.From(ctx).Count(metrics.InterruptsAsked, metrics.DimAgent, name)
	}
}

// load reads the task a step runs, or takes it from u, the task not
// stored yet, as its first write is to store it: version 1, created now.
func (x *Executor) load(ctx context.Context, taskID string, u *Unsaved) (*store.TaskRecord, error) {
	if u == nil {
		return x.store.GetTask(ctx, taskID, store.AllHistory)
	}
	rec := u.Task.Record(x.clock.Now())
	rec.Task.History = slices.Clone(rec.Task.History)
	rec.Task.Artifacts = slices.Clone(rec.Task.Artifacts)
	return &rec, nil
}

// triggerMessage recovers the user message that triggered a step from the
// history, for runners that carry ids only: a new task's first message,
// or the latest user message (the reply) that is not one of the inbox's,
// which the step gets as StepInput.Inbox instead.
func triggerMessage(history []a2a.Message, trigger store.Trigger, inbox []a2a.Message) *a2a.Message {
	if trigger == store.TriggerMessage {
		for i := range history {
			if history[i].Role == a2a.RoleUser {
				m := history[i]
				return &m
			}
		}
		return nil
	}
	queued := make(map[string]bool, len(inbox))
	for _, m := range inbox {
		queued[m.MessageID] = true
	}
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == a2a.RoleUser && !queued[history[i].MessageID] {
			m := history[i]
			return &m
		}
	}
	return nil
}

// contextTasksRead bounds the earlier tasks of a context read for an
// agent's ContextHistory.
const contextTasksRead = 20

// contextHistory returns the most recent messages of the earlier tasks of
// rec's context, oldest first, as many as the agent asks for (none when it
// asks for none). A failed read is logged: the agent then sees the task
// alone.
func (x *Executor) contextHistory(ctx context.Context, rec *store.TaskRecord) []a2a.Message {
	limit := x.info.ContextHistory
	if limit <= 0 {
		return nil
	}
	page, err := x.store.ListTasks(ctx, store.ListQuery{Owner: rec.Owner, ContextID: rec.Task.ContextID, PageSize: contextTasksRead, HistoryLength: -1})
	if err != nil {
		x.log.WarnContext(ctx, "could not read the context's earlier tasks", "taskId", rec.Task.ID, "contextId", rec.Task.ContextID, "error", err)
		return nil
	}
	earlier := slices.DeleteFunc(page.Tasks, func(t store.TaskRecord) bool {
		return t.Task.ID == rec.Task.ID || t.CreatedAt.After(rec.CreatedAt)
	})
	slices.SortStableFunc(earlier, func(a, b store.TaskRecord) int { return a.CreatedAt.Compare(b.CreatedAt) })
	var msgs []a2a.Message
	for _, t := range earlier {
		msgs = append(msgs, t.Task.History...)
	}
	if len(msgs) > limit {
		msgs = msgs[len(msgs)-limit:]
	}
	return msgs
}

// runAgent calls the agent, turning a panic into an error.
func (x *Executor) runAgent(ctx context.Context, in agent.StepInput, emit agent.Emitter) (out agent.Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			x.log.ErrorContext(ctx, "agent panicked", "taskId", in.Task.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error in the agent")
		}
	}()
	return x.agent.Step(ctx, in, emit)
}

func (x *Executor) now() string { return a2a.FormatTime(x.clock.Now()) }

// acquireLater reports whether a blocking step of rec may take the task's
// lease with its first write instead of before it runs the agent (a client
// polling meanwhile sees the task submitted rather than working; the one
// that waits sees neither): rec is a new task
// (submitted, never taken over) whose lease, made when it was created and
// held by no step, lasts at least half a lease more. The lease keeper's first
// renewal, a third of a lease into the step, writes it if the step has not.
func (x *Executor) acquireLater(rec *store.TaskRecord) bool {
	l := rec.Lease
	return rec.Task.Status.State == a2a.TaskStateSubmitted && rec.Takeovers == 0 &&
		l.Held() && l.Owner == "" && l.Until.Sub(x.clock.Now()) > x.lease/2
}
