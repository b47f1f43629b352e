package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/tracing"
)

// Defaults of ExecutorOptions.
const (
	// DefaultMaxCheckpointBytes bounds the agent state stored between steps.
	DefaultMaxCheckpointBytes = 64 << 10
	// DefaultInterruptTTL is how long an interrupt accepts replies
	// (A2A_INTERRUPT_REQUEST_TTL_SECONDS).
	DefaultInterruptTTL = 3 * time.Hour
	// DefaultInterruptTombstoneTTL is how long an expired interrupt still
	// answers "expired" rather than "not found"
	// (A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS).
	DefaultInterruptTombstoneTTL = 10 * time.Minute
)

// Next says what a runner does after a step.
type Next string

// What follows a step.
const (
	// NextDone: the task is terminal (or gone); nothing follows.
	NextDone Next = "done"
	// NextContinue: run another step after StepResult.After.
	NextContinue Next = "continue"
	// NextAwait: the task waits for its client (input-required or
	// auth-required); a reply starts the next step.
	NextAwait Next = "await"
)

// StepRequest asks the executor to run one step.
type StepRequest struct {
	TaskID string
	// Message and Reply come from the Job that triggered the step; both are
	// nil for a step that follows a Continue.
	Message *a2a.Message
	Reply   *agent.Reply
	// Trigger, when Message is nil, says how to recover the trigger from the
	// stored task: the last user message (TriggerMessage, TriggerReply) and
	// the reply recorded in the status (TriggerReply). Runners that cannot
	// carry messages (a state machine, whose state holds ids only) use it.
	Trigger store.Trigger
	// LeaseLater lets the first step of a new task write nothing before
	// its first result: it takes the task's lease with that write (see
	// Executor.acquireLater), so that a step that ends at once writes the
	// task once. The runners of a task's first step ask for it: the inline
	// runner of a blocking send, the worker's run on the asynchronous path.
	LeaseLater bool
	// Created, for the first step of a task run in the request that
	// created it, is the task as stored (Job.Created): the step starts
	// from it instead of reading the task. Its version condition still
	// stops the step if anything changed the task meanwhile.
	Created *store.TaskRecord
	// Unsaved is the task Created describes when it is not stored yet
	// (Job.Unsaved): the step's first write stores it.
	Unsaved *store.NewTask
	// ExecutionARN is the Step Functions execution the step runs in, or
	// "": the step's first write records it on the task when it is not
	// recorded yet (TaskRecord.ExecutionARN), so that a cancel stops it.
	ExecutionARN string
}

// ErrStepStopped is what Step returns when its context ended before the
// step's result was stored: the runner stopped the step (its request's
// budget was spent, its process stops). Nothing of the step is stored
// after that, whatever the agent does; the task keeps its lease, so that
// the runner it is handed to, or a sweep, runs the step again.
var ErrStepStopped = errors.New("step stopped")

// StepResult says how a step (or an Await, Expire or Fail action) ended.
type StepResult struct {
	Next Next
	// After is the delay before the next step (NextContinue).
	After time.Duration
	// State is the task's state after the action; after a step that asked
	// for an interrupt it is the state the interrupt leads to.
	State a2a.TaskState
	// RequestID and InterruptType identify the interrupt (NextAwait).
	RequestID     string
	InterruptType string
	// ActiveUntil is when the interrupt stops accepting replies (set by
	// Await).
	ActiveUntil time.Time
	// Version is the task's version after the step's last write
	// (NextContinue, NextAwait): with the task id it names the hand-off
	// that follows, which a retried step repeats exactly.
	Version int64
}

// AwaitRequest asks the executor to show a step's pending interrupt.
type AwaitRequest struct {
	TaskID    string
	RequestID string
	// TaskToken is the Step Functions token the reply resumes; empty for
	// other runners.
	TaskToken string
}

// Executor runs agent steps against the task store. Every runner (local
// goroutines, inline, the Step Functions worker) drives the same Executor,
// which is what makes their observable task histories identical.
type Executor struct {
	store store.Store
	agent agent.Agent
	// info is the agent's description, read once.
	info          agent.Info
	clock         clock.Clock
	newID         func() string
	log           *slog.Logger
	maxCheckpoint int
	interruptTTL  time.Duration
	tombstoneTTL  time.Duration
	lease         time.Duration
	maxTakeovers  int
	// owner names this executor's steps in their leases.
	owner  string
	keeper leaseKeeper
	files  Files
}

// ExecutorOptions configure an Executor; zero values mean defaults.
type ExecutorOptions struct {
	Clock                 clock.Clock
	NewID                 func() string
	Logger                *slog.Logger
	MaxCheckpointBytes    int
	InterruptTTL          time.Duration
	InterruptTombstoneTTL time.Duration
	// LeaseDuration is how long a step holds its task without renewing
	// (see Lease); MaxTakeovers how many times a task whose lease lapsed
	// is taken over before it is failed.
	LeaseDuration time.Duration
	MaxTakeovers  int
	// Files keeps the parts of the agent's output too large for a task
	// item, and gives the agent the content of file parts (StepInput.Files);
	// nil keeps none.
	Files Files
}

// NewExecutor returns an executor of ag's steps on store.
func NewExecutor(store store.Store, ag agent.Agent, opts ExecutorOptions) *Executor {
	x := &Executor{store: store, agent: ag, info: ag.Info(), clock: clock.Or(opts.Clock), newID: opts.NewID, log: opts.Logger, maxCheckpoint: opts.MaxCheckpointBytes,
		interruptTTL: opts.InterruptTTL, tombstoneTTL: opts.InterruptTombstoneTTL, lease: opts.LeaseDuration, maxTakeovers: opts.MaxTakeovers, files: opts.Files}
	if x.newID == nil {
		x.newID = NewID
	}
	x.log = logger.Or(x.log)
	x.maxCheckpoint = positive.Or(x.maxCheckpoint, DefaultMaxCheckpointBytes)
	x.interruptTTL = positive.Or(x.interruptTTL, DefaultInterruptTTL)
	x.tombstoneTTL = positive.Or(x.tombstoneTTL, DefaultInterruptTombstoneTTL)
	x.lease = positive.Or(x.lease, DefaultLeaseDuration)
	x.maxTakeovers = positive.Or(x.maxTakeovers, DefaultMaxTakeovers)
	x.owner = "step-" + NewID()
	return x
}

// Step runs one agent step of a task and persists what it produced. An error
// means the step's result could not be stored (the store failed); agent
// failures are not errors, they fail the task.
func (x *Executor) Step(ctx context.Context, req StepRequest) (StepResult, error) {
	rec, err := x.load(ctx, req)
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
	w := &taskWriter{x: x, taskID: rec.Task.ID, contextID: rec.Task.ContextID, owner: rec.Owner, version: rec.Version, leaseOwner: x.owner, trigger: stepTrigger(req),
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
	w.unsaved = req.Unsaved
	if req.Unsaved != nil || (req.LeaseLater && x.acquireLater(rec)) {
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
// before its first write stored it (StepRequest.Unsaved): working, with a
// lease that no step holds yet, so that the runner the step is handed to
// takes it, or a sweep takes the task over once it lapses. A task stored
// meanwhile (by the step, or a retried send of its message) is left as it
// is.
func (x *Executor) HandOver(ctx context.Context, nt *store.NewTask) error {
	t := *nt
	t.Task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: x.now()}
	t.Lease = store.Lease{Until: x.clock.Now().Add(x.lease), Trigger: store.TriggerMessage}
	err := x.store.CreateTask(ctx, t)
	var dup *store.DuplicateError
	if err != nil && !errors.As(err, &dup) {
		return fmt.Errorf("store handed-over task %s: %w", nt.Task.ID, err)
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

// load reads the task a step runs, or takes it from req.Created: a task
// just created, whose only change since could be a message to its inbox (a
// version-less write that leaves the message for the next step, as if it
// arrived after this step's read) or a terminal state (which the step's
// first write, conditioned on version 1, finds). An agent that reads its
// context's earlier tasks compares creation times, which only the store
// knows exactly: for it the task is read.
func (x *Executor) load(ctx context.Context, req StepRequest) (*store.TaskRecord, error) {
	if c := req.Created; c != nil && c.Task.ID == req.TaskID && c.Version == 1 && (req.Unsaved != nil || x.info.ContextHistory <= 0) {
		rec := *c
		rec.Task.History = slices.Clone(c.Task.History)
		rec.Task.Artifacts = slices.Clone(c.Task.Artifacts)
		return &rec, nil
	}
	return x.store.GetTask(ctx, req.TaskID, store.AllHistory)
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

func (x *Executor) applyOutcome(ctx context.Context, w *taskWriter, out agent.Outcome) (StepResult, error) {
	if problem := x.checkOutcome(w.owner, &out); problem != "" {
		x.log.WarnContext(ctx, "agent returned an invalid outcome", "taskId", w.taskID, "problem", problem)
		out = agent.Fail(agent.Text("Invalid agent response: " + problem))
	}
	state := out.Kind.State()
	msg := w.agentMessage(out.Message)
	// An outcome's artifacts are whole: each is complete.
	u := store.Update{Artifacts: out.Artifacts, ArtifactLastChunk: len(out.Artifacts) > 0}
	if !state.Terminal() {
		u.Checkpoint = out.Checkpoint
		if u.Checkpoint == nil {
			u.Checkpoint = []byte{} // clear the previous step's
		}
	}
	if state.Interrupted() {
		// Recorded, not shown: Await activates it with its binding.
		in := out.Interrupt
		if in == nil {
			in = &agent.Interrupt{Type: agent.InterruptQuestion}
			if state == a2a.TaskStateAuthRequired {
				in.Type = agent.InterruptAuth
			}
		}
		p := &store.PendingInterrupt{RequestID: x.newID(), Type: in.Type, State: state, Details: nonNilMap(in.Details)}
		if msg == nil {
			msg = w.agentMessage(agent.Text(defaultQuestion(in.Type)))
		}
		a2a.SetInterrupt(msg, a2a.SharedInterruptInfo{RequestID: p.RequestID, Type: p.Type, Phase: a2a.InterruptPhaseAsked, Details: p.Details})
		p.Message = msg
		u.Pending = p
		u.Lease = w.lease(0) // until the interrupt is shown
		if err := w.write(ctx, u); err != nil {
			return w.finish(ctx, err)
		}
		return awaitResult(state, p.RequestID, p.Type, time.Time{}), nil
	}
	if out.Respond {
		markResponse(msg)
	}
	u.Status = &a2a.TaskStatus{State: state, Message: msg, Timestamp: x.now()}
	if !state.Terminal() {
		// The next step must start within the delay and a lease.
		u.Lease = w.lease(out.After)
		u.Lease.Trigger = store.TriggerContinue
	}
	if err := w.write(ctx, u); err != nil {
		return w.finish(ctx, err)
	}
	if state.Terminal() {
		return StepResult{Next: NextDone, State: state}, nil
	}
	return StepResult{Next: NextContinue, After: out.After, State: state}, nil
}

func awaitResult(state a2a.TaskState, requestID, typ string, activeUntil time.Time) StepResult {
	return StepResult{Next: NextAwait, State: state, RequestID: requestID, InterruptType: typ, ActiveUntil: activeUntil}
}

// Await shows the interrupt a step asked for: the task becomes input-required
// (or auth-required) and the interrupt's binding, holding req.TaskToken, is
// created, in one store operation. Repeating it (a retried invocation) only
// replaces the binding's token.
func (x *Executor) Await(ctx context.Context, req AwaitRequest) (StepResult, error) {
	rec, err := x.store.GetTask(ctx, req.TaskID, store.GetOptions{})
	if errors.Is(err, store.ErrNotFound) {
		return StepResult{Next: NextDone}, nil
	}
	if err != nil {
		return StepResult{}, fmt.Errorf("load task %s: %w", req.TaskID, err)
	}
	if st := rec.Task.Status.State; st.Terminal() {
		return StepResult{Next: NextDone, State: st}, nil
	}
	now := x.clock.Now()
	var b store.InterruptBinding
	state := rec.Task.Status.State
	if p := rec.Pending; p != nil && p.RequestID == req.RequestID {
		state = p.State
		b = store.InterruptBinding{
			RequestID: p.RequestID, TaskID: rec.Task.ID, ContextID: rec.Task.ContextID, Owner: rec.Owner,
			Type: p.Type, Details: p.Details, TaskToken: req.TaskToken,
			CreatedAt: now, ActiveUntil: now.Add(x.interruptTTL), ExpiresAt: now.Add(x.interruptTTL + x.tombstoneTTL),
		}
	} else {
		existing, err := x.store.GetInterrupt(ctx, req.RequestID)
		if errors.Is(err, store.ErrNotFound) {
			x.log.WarnContext(ctx, "await for an interrupt that does not exist", "taskId", req.TaskID, "requestId", req.RequestID)
			return StepResult{Next: NextDone, State: state}, nil
		}
		if err != nil {
			return StepResult{}, fmt.Errorf("load interrupt %s: %w", req.RequestID, err)
		}
		b = *existing
		b.TaskToken = req.TaskToken
	}
	_, err = x.store.ActivateInterrupt(ctx, b, a2a.FormatTime(now))
	var ce *store.ConflictError
	switch {
	case errors.As(err, &ce) && ce.Reason == store.ConflictTerminal:
		return StepResult{Next: NextDone, State: ce.State}, nil
	case errors.Is(err, store.ErrNotFound):
		return StepResult{Next: NextDone, State: state}, nil
	case err != nil:
		return StepResult{}, fmt.Errorf("activate interrupt %s of task %s: %w", req.RequestID, req.TaskID, err)
	}
	return awaitResult(state, b.RequestID, b.Type, b.ActiveUntil), nil
}

// Expire fails a task whose interrupt requestID got no reply in time. It does
// nothing when the task no longer waits for that interrupt.
func (x *Executor) Expire(ctx context.Context, taskID, requestID string) (StepResult, error) {
	logfields.Add(ctx, logfields.FieldTaskID, taskID)
	res, err := x.failIf(ctx, taskID, "The input request expired: no reply arrived within "+x.interruptTTL.String()+".",
		func(rec *store.TaskRecord) bool {
			im, ok := a2a.InterruptOf(rec.Task.Status.Message)
			return rec.Task.Status.State.Interrupted() && ok && im.RequestID == requestID
		})
	if err == nil && res.failed {
		metrics.From(ctx).Count(metrics.InterruptsExpired, metrics.DimAgent, x.info.Name)
	}
	return res.StepResult, err
}

// Fail fails a task that is not terminal yet, with reason as the status
// message; the state machine calls it when a step errors or times out.
func (x *Executor) Fail(ctx context.Context, taskID, reason string) (StepResult, error) {
	logfields.Add(ctx, logfields.FieldTaskID, taskID)
	res, err := x.failIf(ctx, taskID, reason, func(*store.TaskRecord) bool { return true })
	return res.StepResult, err
}

// failResult is failIf's result, and whether it failed the task.
type failResult struct {
	StepResult
	failed bool
}

func (x *Executor) failIf(ctx context.Context, taskID, reason string, applies func(*store.TaskRecord) bool) (failResult, error) {
	for attempt := 0; ; attempt++ {
		rec, err := x.store.GetTask(ctx, taskID, store.GetOptions{})
		if errors.Is(err, store.ErrNotFound) {
			return failResult{StepResult: StepResult{Next: NextDone}}, nil
		}
		if err != nil {
			return failResult{}, fmt.Errorf("load task %s: %w", taskID, err)
		}
		if st := rec.Task.Status.State; st.Terminal() || !applies(rec) {
			return failResult{StepResult: StepResult{Next: NextDone, State: st}}, nil
		}
		w := &taskWriter{x: x, taskID: rec.Task.ID, contextID: rec.Task.ContextID}
		_, err = x.store.UpdateTask(ctx, store.Update{
			TaskID:    taskID,
			IfVersion: rec.Version,
			Status:    &a2a.TaskStatus{State: a2a.TaskStateFailed, Message: w.agentMessage(agent.Text(reason)), Timestamp: x.now()},
		})
		var ce *store.ConflictError
		if errors.As(err, &ce) && attempt < maxUpdateAttempts {
			continue // re-read: the task moved
		}
		if err != nil {
			return failResult{}, fmt.Errorf("fail task %s: %w", taskID, err)
		}
		metrics.TaskState(ctx, x.info.Name, a2a.TaskStateFailed)
		return failResult{StepResult: StepResult{Next: NextDone, State: a2a.TaskStateFailed}, failed: true}, nil
	}
}

// checkOutcome returns what is wrong with an outcome of owner's task, or
// "".
func (x *Executor) checkOutcome(owner string, out *agent.Outcome) string {
	if !out.Kind.Valid() {
		return fmt.Sprintf("unknown outcome %q", out.Kind)
	}
	if err := out.Err(); err != nil {
		return err.Error()
	}
	if out.Message != nil {
		if err := validateAgentParts("status message", out.Message.Parts); err != "" {
			return err
		}
		if err := x.checkOwned(owner, out.Message.Parts); err != nil {
			return "status message: " + err.Error()
		}
	}
	for i := range out.Artifacts {
		if err := out.Artifacts[i].Validate(fmt.Sprintf("artifacts[%d]", i)); err != nil {
			return err.(*a2a.Error).Message
		}
		if err := x.checkOwned(owner, out.Artifacts[i].Parts); err != nil {
			return fmt.Sprintf("artifacts[%d]: %v", i, err)
		}
	}
	if out.After < 0 {
		return "continue delay is negative"
	}
	if out.Respond && (out.Kind != agent.OutcomeCompleted || out.Message == nil) {
		return "a direct response (agent.Respond) must complete the task with a message"
	}
	if len(out.Checkpoint) > x.maxCheckpoint {
		return fmt.Sprintf("checkpoint of %d bytes exceeds the limit of %d bytes", len(out.Checkpoint), x.maxCheckpoint)
	}
	return ""
}

// checkOwned reports an agent's part that names a file of another caller
// than owner (see Files.CheckOwned).
func (x *Executor) checkOwned(owner string, parts []a2a.Part) error {
	if x.files == nil {
		return nil
	}
	return x.files.CheckOwned(owner, parts)
}

func validateAgentParts(what string, parts []a2a.Part) string {
	if len(parts) == 0 {
		return what + " has no parts"
	}
	if err := a2a.ValidateParts(what, parts); err != nil {
		return err.(*a2a.Error).Message
	}
	return ""
}

func (x *Executor) now() string { return a2a.FormatTime(x.clock.Now()) }

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
	// yet (StepRequest.Unsaved): that write stores it (see storeUnsaved).
	unsaved *store.NewTask
}

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

var _ agent.Emitter = (*taskWriter)(nil)

// write applies u conditioned on the version last seen. On a version conflict
// (another writer, such as a retried worker) it re-reads and tries again; a
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
	if len(kept) > 0 && err != nil && refused(err) {
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
// for u to follow. The finished task is left in the job (Job.Unsaved) for
// the send to answer with. A task that a send of the same message stored
// first is the same task: this step's result is dropped as that of a task
// finished meanwhile, and the store's refusal is left in the job
// (NewTask.Refused), for the send to answer with that task.
func (w *taskWriter) storeUnsaved(ctx context.Context, u store.Update) (done bool, err error) {
	nt := *w.unsaved
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
		*w.unsaved = nt
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
// error wraps ErrTooLarge.
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
		c.MessageID = w.x.newID()
	}
	c.TaskID, c.ContextID = w.taskID, w.contextID
	return &c
}

func defaultQuestion(interruptType string) string {
	switch interruptType {
	case agent.InterruptPermission:
		return "The agent asks for permission to continue."
	case agent.InterruptAuth:
		return "The agent needs authentication to continue."
	}
	return "The agent needs more input to continue."
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
