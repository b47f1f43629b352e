// Package service holds the transport-neutral A2A operations (send, get,
// list, cancel) and the step executor, behind the ports they need: TaskStore,
// Runner, clock.Clock and agent.Agent. It imports neither AWS nor net/http.
//
// Owner scoping lives here: every task belongs to the caller that created it,
// and any other caller is told the task does not exist.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Defaults of Config.
const (
	DefaultBlockingTimeout = 25 * time.Second
	// A blocking send that waits for work done elsewhere reads its task
	// at these intervals, doubling: three reads in the first second, then
	// one a second.
	defaultPollMin    = 100 * time.Millisecond
	defaultPollMax    = time.Second
	maxUpdateAttempts = 5
	// DefaultMaxParts bounds the parts of a message (A2A_MAX_PARTS).
	DefaultMaxParts = 100
)

// Config holds the service's behaviour settings.
type Config struct {
	// BlockingDefault applies when message/send does not say
	// configuration.blocking (A2A_BLOCKING_DEFAULT).
	BlockingDefault bool
	// BlockingTimeout bounds how long a blocking send waits for the task to
	// settle before returning it as it is (A2A_BLOCKING_TIMEOUT_SECONDS),
	// counted from the send's start: what a runner spent of it running
	// steps in the request is not waited again.
	BlockingTimeout time.Duration
	// PushNotifications enables push notification configs.
	PushNotifications bool
	// LeaseDuration is the time a runner has to start a new task or a
	// reply before a sweep takes the task over (A2A_TASK_LEASE_SECONDS;
	// see Lease).
	LeaseDuration time.Duration
	// IdempotencyWindow is how long a message id stays the message's
	// (A2A_IDEMPOTENCY_WINDOW_SECONDS): within it, a send of the same id
	// and the same message is a retry, answered with the first send's task
	// without starting anything, and a send of the same id with another
	// message is refused; past it, the id is free again. Zero means
	// DefaultIdempotencyWindow; NoIdempotency turns the rule off.
	IdempotencyWindow time.Duration
	// NoIdempotency makes every send a new message, whatever its id
	// (A2A_IDEMPOTENCY_WINDOW_SECONDS=0): what a client that reuses one
	// message id for many messages needs (some conformance kits do).
	NoIdempotency bool
	// MaxParts bounds the parts of a message (A2A_MAX_PARTS).
	MaxParts int
}

// DefaultIdempotencyWindow is the idempotency window unless set.
const DefaultIdempotencyWindow = 24 * time.Hour

// Options carry the service's collaborators that have defaults.
type Options struct {
	Clock  clock.Clock
	NewID  func() string
	Logger *slog.Logger
	// CheckPushConfig vets webhook registrations (see PushConfigChecker);
	// nil accepts any URL, leaving the dial-time guard of the delivery as
	// the only check.
	CheckPushConfig PushConfigChecker
	// Files keeps the parts too large for a task item; nil keeps none.
	Files Files
}

// Service implements the A2A operations.
type Service struct {
	store     store.Store
	runner    Runner
	info      agent.Info
	cfg       Config
	clock     clock.Clock
	newID     func() string
	log       *slog.Logger
	checkPush PushConfigChecker
	redriver  DeliveryRedriver
	files     Files
}

// NewID returns a random UUID string, the default id generator.
func NewID() string { return uuid.NewString() }

// New returns a service over store and runner for the agent described by info.
func New(store store.Store, runner Runner, info agent.Info, cfg Config, opts Options) *Service {
	s := &Service{store: store, runner: runner, info: info, cfg: cfg, clock: clock.Or(opts.Clock), newID: opts.NewID, log: opts.Logger, checkPush: opts.CheckPushConfig, files: opts.Files}
	s.cfg.BlockingTimeout = positive.Or(s.cfg.BlockingTimeout, DefaultBlockingTimeout)
	s.cfg.MaxParts = positive.Or(s.cfg.MaxParts, DefaultMaxParts)
	s.cfg.LeaseDuration = positive.Or(s.cfg.LeaseDuration, DefaultLeaseDuration)
	s.cfg.IdempotencyWindow = positive.Or(s.cfg.IdempotencyWindow, DefaultIdempotencyWindow)
	if s.newID == nil {
		s.newID = NewID
	}
	s.log = logger.Or(s.log)
	return s
}

// SendMessage implements message/send: it creates a task, or continues an
// interrupted one, starts its execution and, when blocking, waits until the
// task is terminal or interrupted (at most Config.BlockingTimeout).
func (s *Service) SendMessage(ctx context.Context, owner string, p a2a.MessageSendParams) (*a2a.Task, error) {
	// The wait bounds the request, as an I/O timeout does: real time.
	waitUntil := time.Now().Add(s.cfg.BlockingTimeout)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if n := len(p.Message.Parts); n > s.cfg.MaxParts {
		return nil, a2a.InvalidParams("params.message.parts", "holds %d parts; a message holds at most %d (A2A_MAX_PARTS)", n, s.cfg.MaxParts)
	}
	cfg := p.Configuration
	if cfg == nil {
		cfg = &a2a.MessageSendConfiguration{}
	}
	if err := s.checkOutputModes(cfg.AcceptedOutputModes); err != nil {
		return nil, err
	}
	if err := checkModel(&p); err != nil {
		return nil, err
	}
	if cfg.PushNotificationConfig != nil && !s.cfg.PushNotifications {
		return nil, a2a.Errorf(a2a.CodePushNotificationNotSupported, "push notifications are not supported by this agent; poll tasks/get instead")
	}
	blocking := s.cfg.BlockingDefault
	if cfg.Blocking != nil {
		blocking = *cfg.Blocking
	}
	if blocking {
		logfields.Add(ctx, logfields.FieldBlocking, true)
	}
	historyLength := -1
	if cfg.HistoryLength != nil {
		historyLength = *cfg.HistoryLength
	}

	var inline *store.PushConfig
	if cfg.PushNotificationConfig != nil {
		c, err := s.newPushConfig(p.Message.TaskID, p.Protocol, *cfg.PushNotificationConfig, "params.configuration.pushNotificationConfig")
		if err != nil {
			return nil, err
		}
		inline = &c
	}

	opts := store.GetOptions{HistoryLength: historyLength, IncludeArtifacts: true}
	fp := ""
	if !s.cfg.NoIdempotency {
		fp = MessageFingerprint(&p)
	}
	t, err := s.send(ctx, owner, &p, sendState{blocking: blocking, opts: opts, push: inline, fingerprint: fp, waitUntil: waitUntil})
	if errors.Is(err, errMessageIDFree) {
		// The message id's first use is past the window: the id is free
		// again, and this send is a new message (its retries are not
		// recognised: the first use holds the id's key).
		t, err = s.send(ctx, owner, &p, sendState{blocking: blocking, opts: opts, push: inline, fingerprint: fp, waitUntil: waitUntil, fresh: true})
	}
	return t, err
}

// sendState is what a send decided before it stores anything.
type sendState struct {
	blocking    bool
	opts        store.GetOptions
	push        *store.PushConfig
	fingerprint string
	waitUntil   time.Time
	// fresh makes a new task of a message whose id is not deduplicated:
	// a random task id, and no idempotency record.
	fresh bool
}

// errMessageIDFree: the send's message id was first used past the
// idempotency window; the send is a new message.
var errMessageIDFree = errors.New("the message id is free again")

// send creates or continues the task of p and starts it (see SendMessage).
func (s *Service) send(ctx context.Context, owner string, p *a2a.MessageSendParams, st sendState) (*a2a.Task, error) {
	blocking, historyLength, opts := st.blocking, st.opts.HistoryLength, st.opts
	msg := p.Message
	var (
		job  Job
		err  error
		kept []string
	)
	if s.files != nil {
		// Large parts go to the file store first: the task holds their
		// URIs. Whatever is not stored in the end is discarded.
		if msg.Parts, kept, err = s.files.Accept(ctx, owner, "params.message.parts", msg.Parts); err != nil {
			return nil, err
		}
	}
	session := requestedSession(p)
	queued := false
	if msg.TaskID == "" {
		// A blocking send run in the request leaves its task to its first
		// step to store (see Job.Unsaved), reading nothing first: a retried
		// send runs the step again (steps are at least once), and its first
		// write, refused, finds the task the first send stored, which is
		// the answer.
		taskID := store.TaskIDFor(owner, msg.MessageID)
		fresh := st.fresh || s.cfg.NoIdempotency
		if fresh {
			taskID = s.newID()
		}
		unsaved := blocking && s.startsInline()
		job, err = s.createTask(ctx, owner, taskID, msg, p.Metadata, session, st.push, unsaved, st.fingerprint, fresh)
		if err == nil {
			metrics.From(ctx).Count(metrics.TasksCreated, metrics.DimAgent, s.info.Name)
		}
	} else {
		job, queued, err = s.continueTask(ctx, owner, msg, p.Metadata, st.push, st.fingerprint)
	}
	if err != nil && refused(err) && len(kept) > 0 {
		s.files.Discard(ctx, kept)
	}
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		// A retried send: answer with the task the first one made, start
		// nothing. (Or the id of another message: refused.)
		return s.duplicate(ctx, owner, msg.MessageID, dup, st.fingerprint, opts)
	}
	if err != nil {
		return nil, err
	}
	if queued {
		// The task is at work: the message waits in its inbox for the
		// next step, and the client gets the task as it is.
		return s.read(ctx, owner, job.TaskID, store.GetOptions{HistoryLength: historyLength, IncludeArtifacts: true})
	}
	job.Blocking = blocking
	if err := s.start(ctx, job); err != nil {
		if len(kept) > 0 {
			s.discardUnstored(ctx, job.TaskID, kept)
		}
		if errors.Is(err, store.ErrTooLarge) {
			// The task's first step could not store it (Job.Unsaved).
			return nil, s.storeError(err, job.TaskID, "params.message")
		}
		return nil, err
	}
	if u := job.Unsaved; u != nil && u.Refused != nil {
		// The step's first write found the task of a send of the same
		// message id: it stored nothing, and nothing names this send's
		// files.
		if len(kept) > 0 {
			s.files.Discard(ctx, kept)
		}
		return s.duplicate(ctx, owner, msg.MessageID, u.Refused, st.fingerprint, opts)
	}
	if u := job.Unsaved; u != nil && u.Task.Status.State.Terminal() {
		// The step stored the task once, finished: it is the answer.
		return s.wire(ctx, recordOf(u, historyLength)), nil
	}
	if !blocking && job.Created != nil {
		// The task as this send created it is the answer: a non-blocking
		// send does not wait to see what its runner made of it.
		return s.wire(ctx, withHistory(job.Created, historyLength)), nil
	}
	if blocking {
		// An inline runner returns with the task settled: the answer is
		// then read once, without polling first.
		rec, err := s.get(ctx, owner, job.TaskID, opts)
		if err != nil {
			return nil, err
		}
		if rec.Task.Status.State.Settled() || s.dueAfter(rec, st.waitUntil) {
			return s.wire(ctx, rec), nil
		}
		// The work goes on elsewhere (a step handed over, an interrupt
		// shown by a state machine execution): wait for it with what is
		// left of the budget.
		s.waitSettled(ctx, job.TaskID, st.waitUntil)
	}
	return s.read(ctx, owner, job.TaskID, opts)
}

// createTask stores a new task, taskID (TaskIDFor its first message), or,
// when unsaved, leaves it to its first step to store (Job.Unsaved). The task is bound to
// an agent session (metadata.shared.session.id, in the task's metadata and
// in the request metadata its steps see): the one the request names, else
// the one bound to its context, else a new one, which the store binds to a
// new context.
func (s *Service) createTask(ctx context.Context, owner, taskID string, msg a2a.Message, md a2a.Metadata, session string, push *store.PushConfig, unsaved bool, fingerprint string, fresh bool) (Job, error) {
	// The context's binding is known for a new context, and once read.
	bindingKnown := msg.ContextID == ""
	if session == "" && msg.ContextID != "" {
		bound, err := s.store.ContextSession(ctx, owner, msg.ContextID)
		switch {
		case err == nil:
			session = bound
		case !errors.Is(err, store.ErrNotFound):
			return Job{}, fmt.Errorf("read context %s: %w", msg.ContextID, err)
		}
		bindingKnown = true
	}
	if session == "" {
		session = s.newID()
	}
	if msg.ContextID == "" {
		msg.ContextID = s.newID()
	}
	msg.TaskID = taskID
	t := a2a.Task{
		ID:        taskID,
		ContextID: msg.ContextID,
		Status:    a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: s.now()},
		History:   []a2a.Message{msg},
	}
	// The session is stored as a value and shown as metadata on the way
	// out (withRuntimeMetadata, a2a.WithSession): a task keeps no metadata
	// maps of its own for it.
	nt := store.NewTask{Task: t, Owner: owner, RequestMetadata: md, SessionID: session, BindingKnown: bindingKnown, Lease: s.startLease(store.TriggerMessage),
		Fingerprint: fingerprint, NoRecord: fresh}
	if push != nil {
		push.TaskID = taskID
		if push.Config.ID == "" {
			push.Config.ID = taskID
		}
		nt.PushConfigs = []store.PushConfig{*push}
	}
	created := s.clock.Now()
	rec := &store.TaskRecord{Task: t, Owner: owner, Version: 1, CreatedAt: created, UpdatedAt: created,
		RequestMetadata: md, SessionID: session, Lease: nt.Lease.Stored(), Fingerprint: fingerprint}
	job := Job{TaskID: taskID, Message: &msg, Created: rec}
	if unsaved {
		// Refused now what the first step could not store, before the
		// agent runs for nothing (every store holds MaxContentBytes).
		if err := fits(&msg, md); err != nil {
			return Job{}, s.storeError(err, taskID, "params.message")
		}
		job.Unsaved = &nt
		return job, nil
	}
	if err := s.store.CreateTask(ctx, nt); err != nil {
		return Job{}, s.storeError(err, taskID, "params.message")
	}
	return job, nil
}

// fits reports, as every store would (CheckContent), a message or
// request metadata too large to store.
func fits(msg *a2a.Message, md a2a.Metadata) error {
	if err := store.CheckContent("message", msg.ApproxSize(), msg); err != nil {
		return err
	}
	return store.CheckContent("request metadata", md.ApproxSize(), md)
}

// discardUnstored discards the files of a message whose task turned out
// not to be stored (its first step could not store it).
func (s *Service) discardUnstored(ctx context.Context, taskID string, kept []string) {
	if _, err := s.store.GetTask(ctx, taskID, store.GetOptions{}); errors.Is(err, store.ErrNotFound) {
		s.files.Discard(ctx, kept)
	}
}

// startsInline reports whether the runner runs a blocking send's first
// step in the request and so may store its task (see InlineRunner).
func (s *Service) startsInline() bool {
	r, ok := s.runner.(InlineRunner)
	return ok && r.StartsInline()
}

// continueTask appends a user message to a task that is not finished. An
// interrupted task is resumed: when it waits on an interrupt binding, the
// message is the reply to it and resolves it (see resolve). A task at work
// (submitted or working) keeps working: the message goes to its inbox for
// the agent's next step, and queued is true (nothing to start). The state check is left to the conditional
// update, which checks the idempotency record first: a retried message is
// recognised as a duplicate even after the task moved on. An inline push
// config is stored before the task resumes, so it hears of every change the
// message causes.
func (s *Service) continueTask(ctx context.Context, owner string, msg a2a.Message, md a2a.Metadata, push *store.PushConfig, fingerprint string) (job Job, queued bool, err error) {
	idemKey := msg.MessageID
	if s.cfg.NoIdempotency {
		idemKey = ""
	}
	for attempt := 0; ; attempt++ {
		rec, err := s.get(ctx, owner, msg.TaskID, store.GetOptions{})
		if err != nil {
			return Job{}, false, err
		}
		if push != nil && attempt == 0 {
			if err := s.store.PutPushConfig(ctx, *push); err != nil {
				return Job{}, false, s.pushStoreError(err, rec.Task.ID, "params.configuration.pushNotificationConfig")
			}
		}
		if msg.ContextID != "" && msg.ContextID != rec.Task.ContextID {
			return Job{}, false, a2a.InvalidParams("params.message.contextId", "%q does not match the context %q of task %s", msg.ContextID, rec.Task.ContextID, rec.Task.ID)
		}
		msg.ContextID = rec.Task.ContextID
		if st := rec.Task.Status.State; !st.Terminal() && !st.Interrupted() {
			// No version condition: appending does not depend on what
			// the steps wrote meanwhile, only on the task still being at
			// work (a step writes often, and would make it retry).
			_, err = s.store.UpdateTask(ctx, store.Update{
				TaskID:         rec.Task.ID,
				IfStates:       []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking},
				Messages:       []a2a.Message{msg},
				Inbox:          true,
				IdempotencyKey: idemKey,
				Fingerprint:    fingerprint,
				Owner:          owner,
			})
			var ce *store.ConflictError
			if errors.As(err, &ce) {
				if !ce.State.Terminal() && attempt < maxUpdateAttempts {
					continue // the task now waits for input: read it again
				}
				return Job{}, false, notContinuable(rec.Task.ID, ce.State)
			}
			if err != nil {
				return Job{}, false, s.storeError(err, rec.Task.ID, "params.message")
			}
			return Job{TaskID: rec.Task.ID, Message: &msg}, true, nil
		}
		var reply *agent.Reply
		if rec.Task.Status.State.Interrupted() {
			if reply, err = replyFromMessage(&rec.Task, &msg); err != nil {
				return Job{}, false, err
			}
			if reply.RequestID != "" {
				b, err := s.binding(ctx, owner, reply.RequestID, "", a2a.MethodMessageSend)
				if err == nil {
					job, err := s.resolve(ctx, owner, b, msg, reply, idemKey, fingerprint, md)
					return job, false, err
				}
				if !errors.Is(err, &a2a.Error{Code: a2a.CodeInterruptRequestNotFound}) {
					return Job{}, false, err
				}
				// No binding (it aged out): a plain continuation.
			}
		}
		_, err = s.store.UpdateTask(ctx, store.Update{
			TaskID:          rec.Task.ID,
			IfVersion:       rec.Version,
			IfStates:        []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired},
			Messages:        []a2a.Message{msg},
			IdempotencyKey:  idemKey,
			Fingerprint:     fingerprint,
			Owner:           owner,
			Status:          &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: s.now()},
			RequestMetadata: md,
			Lease:           s.startLease(store.TriggerReply),
		})
		var ce *store.ConflictError
		if errors.As(err, &ce) {
			if !ce.State.Terminal() && attempt < maxUpdateAttempts {
				continue // another write landed first: read the task again
			}
			return Job{}, false, notContinuable(rec.Task.ID, ce.State)
		}
		if err != nil {
			return Job{}, false, s.storeError(err, rec.Task.ID, "params.message")
		}
		return Job{TaskID: rec.Task.ID, Message: &msg, Reply: reply}, false, nil
	}
}

// notContinuable says why a task in state st cannot take a new user message.
func notContinuable(taskID string, st a2a.TaskState) error {
	if st.Terminal() {
		return a2a.Errorf(a2a.CodeUnsupportedOperation,
			"task %s is %s and cannot take new messages; send the message without taskId to start a new task (referenceTaskIds can point to this one)", taskID, st)
	}
	return a2a.Errorf(a2a.CodeUnsupportedOperation,
		"task %s is %s and kept changing while the message was being added; send it again", taskID, st)
}

// replyFromMessage reads a plain user message as the answer to the task's
// pending interrupt.
func replyFromMessage(t *a2a.Task, msg *a2a.Message) (*agent.Reply, error) {
	text := msg.Text()
	r := &agent.Reply{Text: text}
	im, ok := a2a.InterruptOf(t.Status.Message)
	if !ok {
		r.Answers = [][]string{{text}}
		return r, nil
	}
	r.RequestID, r.Type = im.RequestID, im.Type
	switch r.Type {
	case agent.InterruptPermission:
		perm, ok := permissionFromText(text)
		if !ok {
			return nil, a2a.InvalidParams("params.message.parts", "task %s asks for permission; answer %q, %q or %q (or use a2a.interrupt.permission.reply)",
				t.ID, agent.PermissionOnce, agent.PermissionAlways, agent.PermissionReject)
		}
		r.Permission, r.Text = perm, ""
	default:
		r.Answers = [][]string{{text}}
	}
	return r, nil
}

func permissionFromText(text string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "once", "yes", "y", "allow", "ok", "approve":
		return agent.PermissionOnce, true
	case "always":
		return agent.PermissionAlways, true
	case "reject", "no", "n", "deny":
		return agent.PermissionReject, true
	}
	return "", false
}

// failUnstarted marks a task that its runner refused as failed, so that it
// does not sit in submitted forever.
func (s *Service) failUnstarted(ctx context.Context, taskID string, cause error) {
	s.log.ErrorContext(ctx, "runner could not start task", "taskId", taskID, "error", cause)
	_, err := s.store.UpdateTask(ctx, store.Update{TaskID: taskID, Status: &a2a.TaskStatus{
		State:     a2a.TaskStateFailed,
		Message:   &a2a.Message{Role: a2a.RoleAgent, MessageID: s.newID(), TaskID: taskID, Parts: []a2a.Part{a2a.TextPart("The task could not be started; send the message again.")}},
		Timestamp: s.now(),
	}})
	if err != nil && !errors.Is(err, store.ErrNotFound) { // not found: never stored (Job.Unsaved), nothing to mark
		s.log.ErrorContext(ctx, "could not mark unstarted task failed", "taskId", taskID, "error", err)
	}
}

// dueAfter reports whether the next step of rec, a task that waits after
// a Continue outcome, runs after until: waiting for it would spend the
// request's time for nothing. A continuation's lease lasts its delay and
// a lease (see Executor.applyOutcome).
func (s *Service) dueAfter(rec *store.TaskRecord, until time.Time) bool {
	l := rec.Lease
	if !l.Held() || l.Trigger != store.TriggerContinue {
		return false
	}
	due := l.Until.Sub(s.clock.Now()) - s.cfg.LeaseDuration
	return due >= time.Until(until)
}

// waitSettled waits until the task, which the caller has just read
// unsettled, is terminal or interrupted, at most until until: its polls
// start after a first pause. A timeout is not an error: the caller answers
// with the task as it is. The timeout bounds the request, as an I/O timeout
// does, so it runs in real time; so does the pace of the polls.
func (s *Service) waitSettled(ctx context.Context, taskID string, until time.Time) {
	left := time.Until(until)
	if left <= 0 {
		return
	}
	timeout := time.NewTimer(left)
	defer timeout.Stop()
	if waiter, ok := s.store.(store.SettleWaiter); ok {
		select {
		case <-waiter.Settled(taskID):
		case <-timeout.C:
		case <-ctx.Done():
		}
		return
	}
	for poll := defaultPollMin; pause(ctx, timeout.C, poll); poll = min(poll*2, defaultPollMax) {
		rec, err := s.store.GetTask(ctx, taskID, store.GetOptions{})
		if err != nil || rec.Task.Status.State.Settled() {
			return
		}
	}
}

// pause waits d, or less when stop fires or ctx ends; it reports whether
// the full d passed.
func pause(ctx context.Context, stop <-chan time.Time, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
	case <-ctx.Done():
	}
	return false
}

// GetTask implements tasks/get.
func (s *Service) GetTask(ctx context.Context, owner string, p a2a.TaskQueryParams) (*a2a.Task, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	opts := store.GetOptions{HistoryLength: -1, IncludeArtifacts: true}
	if p.HistoryLength != nil {
		opts.HistoryLength = *p.HistoryLength
	}
	return s.read(ctx, owner, p.ID, opts)
}

// CancelTask implements tasks/cancel. Canceling a canceled task returns it
// unchanged; canceling another terminal task is refused with -32002. The
// first terminal state always wins.
func (s *Service) CancelTask(ctx context.Context, owner string, p a2a.TaskIDParams) (*a2a.Task, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		rec, err := s.get(ctx, owner, p.ID, store.GetOptions{})
		if err != nil {
			return nil, err
		}
		switch st := rec.Task.Status.State; {
		case st == a2a.TaskStateCanceled:
			return s.read(ctx, owner, p.ID, store.AllHistory)
		case st.Terminal():
			return nil, a2a.Errorf(a2a.CodeTaskNotCancelable, "task %s is %s and cannot be canceled", p.ID, st)
		}
		_, err = s.store.UpdateTask(ctx, store.Update{
			TaskID:    p.ID,
			IfVersion: rec.Version,
			Status:    &a2a.TaskStatus{State: a2a.TaskStateCanceled, Timestamp: s.now()},
		})
		var ce *store.ConflictError
		if errors.As(err, &ce) && attempt < maxUpdateAttempts {
			continue // re-read: another writer moved first
		}
		if err != nil {
			return nil, s.storeError(err, p.ID, "params")
		}
		metrics.TaskState(ctx, s.info.Name, a2a.TaskStateCanceled)
		if err := s.runner.Cancel(ctx, CancelRequest{TaskID: p.ID, TaskToken: s.waitingToken(ctx, &rec.Task), ExecutionARN: rec.ExecutionARN}); err != nil {
			s.log.WarnContext(ctx, "runner could not stop canceled task", "taskId", p.ID, "error", err)
		}
		return s.read(ctx, owner, p.ID, store.AllHistory)
	}
}

// waitingToken is the callback token of the interrupt an interrupted task
// waits on, or "".
func (s *Service) waitingToken(ctx context.Context, t *a2a.Task) string {
	if !t.Status.State.Interrupted() {
		return ""
	}
	im, _ := a2a.InterruptOf(t.Status.Message)
	id := im.RequestID
	if id == "" {
		return ""
	}
	b, err := s.store.GetInterrupt(ctx, id)
	if err != nil {
		return ""
	}
	return b.TaskToken
}

// ListTasks implements tasks/list: the caller's tasks, newest first.
func (s *Service) ListTasks(ctx context.Context, owner string, p a2a.ListTasksParams) (*a2a.ListTasksResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	q := store.ListQuery{Owner: owner, ContextID: p.ContextID, State: p.Status, PageSize: a2a.DefaultPageSize, IncludeArtifacts: p.IncludeArtifacts}
	if p.PageSize != nil {
		q.PageSize = *p.PageSize
	}
	if p.HistoryLength != nil {
		q.HistoryLength = *p.HistoryLength
	}
	if p.StatusTimestampAfter != "" {
		t, _ := a2a.ParseTime(p.StatusTimestampAfter) // validated
		q.StatusAfter = a2a.FormatTime(t)
	}
	if p.PageToken != "" {
		c, err := decodePageToken(owner, p.PageToken)
		if err != nil {
			return nil, err
		}
		q.Cursor = c
	}
	page, err := s.store.ListTasks(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	res := &a2a.ListTasksResult{Tasks: make([]a2a.Task, 0, len(page.Tasks)), PageSize: q.PageSize, TotalSize: page.Total}
	for i := range page.Tasks {
		res.Tasks = append(res.Tasks, *s.presign(ctx, withRuntimeMetadata(&page.Tasks[i])))
	}
	if page.NextCursor != "" {
		res.NextPageToken = encodePageToken(owner, page.NextCursor)
	}
	return res, nil
}

// checkOutputModes refuses a request whose accepted output modes share
// nothing with the agent's.
func (s *Service) checkOutputModes(accepted []string) error {
	if len(accepted) == 0 {
		return nil
	}
	produced := s.info.OutputModes
	if len(produced) == 0 {
		produced = []string{"text/plain"}
	}
	for _, a := range accepted {
		if a == "*/*" || slices.ContainsFunc(produced, func(p string) bool { return mediaTypeMatches(a, p) }) {
			return nil
		}
	}
	return a2a.Errorf(a2a.CodeContentTypeNotSupported,
		"none of the accepted output modes [%s] is produced by this agent, which produces [%s]",
		strings.Join(accepted, ", "), strings.Join(produced, ", "))
}

// mediaTypeMatches compares media types, ignoring parameters and case, with
// "type/*" wildcards on either side.
func mediaTypeMatches(a, b string) bool {
	norm := func(s string) string {
		s, _, _ = strings.Cut(s, ";")
		return strings.ToLower(strings.TrimSpace(s))
	}
	a, b = norm(a), norm(b)
	if a == b {
		return true
	}
	at, as, _ := strings.Cut(a, "/")
	bt, bs, _ := strings.Cut(b, "/")
	return at == bt && (as == "*" || bs == "*")
}

// get reads a task owned by owner; any other caller gets TaskNotFound.
func (s *Service) get(ctx context.Context, owner, taskID string, opts store.GetOptions) (*store.TaskRecord, error) {
	rec, err := s.store.GetTask(ctx, taskID, opts)
	if err != nil {
		return nil, s.storeError(err, taskID, "params")
	}
	if rec.Owner != owner {
		return nil, a2a.TaskNotFound(taskID)
	}
	return rec, nil
}

func (s *Service) read(ctx context.Context, owner, taskID string, opts store.GetOptions) (*a2a.Task, error) {
	rec, err := s.get(ctx, owner, taskID, opts)
	if err != nil {
		return nil, err
	}
	return s.wire(ctx, rec), nil
}

// wire is rec as a request answers with it.
func (s *Service) wire(ctx context.Context, rec *store.TaskRecord) *a2a.Task {
	logfields.AddTask(ctx, rec.Task.ID, rec.Task.ContextID)
	return s.presign(ctx, withRuntimeMetadata(rec))
}

// presign is t with its kept files named by presigned URLs.
func (s *Service) presign(ctx context.Context, t *a2a.Task) *a2a.Task {
	if s.files == nil {
		return t
	}
	return s.files.PresignTask(ctx, t)
}

// CreateUpload implements files/createUpload: a presigned URL to upload a
// file before the message that names it.
func (s *Service) CreateUpload(ctx context.Context, owner string, p a2a.FileUploadParams) (*a2a.FileUploadResult, error) {
	if s.files == nil {
		return nil, a2a.Errorf(a2a.CodeUnsupportedOperation, "this server keeps no files (no file store is configured): send files inline, within the request body limit")
	}
	return s.files.CreateUpload(ctx, owner, p)
}

// storeError maps a store error to the protocol: not found, too large, or
// an internal error (wrapped, for the edge to log).
func (s *Service) storeError(err error, taskID, field string) error {
	var tl *store.TooLargeError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return a2a.TaskNotFound(taskID)
	case errors.As(err, &tl):
		return a2a.InvalidParams(field, "%s", tl.Error())
	case errors.Is(err, store.ErrTooLarge):
		return a2a.InvalidParams(field, "is too large to store")
	}
	var full *store.StoreFullError
	if errors.As(err, &full) {
		return a2a.Errorf(a2a.CodeUnsupportedOperation, "%s: finish or cancel some, or retry later (the local server's bounds are A2A_MEMORY_MAX_TASKS and A2A_MEMORY_MAX_BYTES)", full.Error())
	}
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("task %s: %w", taskID, err)
}

func (s *Service) now() string { return a2a.FormatTime(s.clock.Now()) }

// responseKey marks, in an agent's final status message, a direct response
// (agent.Respond): Send answers a waiting client with that message. It is
// host bookkeeping, removed from the Message Send returns.
const responseKey = "a2a-lambda.response"

// markResponse marks msg as the direct response of its task.
func markResponse(msg *a2a.Message) {
	md := maps.Clone(msg.Metadata)
	if md == nil {
		md = a2a.Metadata{}
	}
	md[responseKey] = "message"
	msg.Metadata = md
}

// Send implements message/send (SendMessage) with its full result: the
// task SendMessage returns or, when the agent answered the waiting client
// directly (agent.Respond), that Message.
func (s *Service) Send(ctx context.Context, owner string, p a2a.MessageSendParams) (a2a.SendResult, error) {
	t, err := s.SendMessage(ctx, owner, p)
	if err != nil {
		return a2a.SendResult{}, err
	}
	if m := t.Status.Message; m != nil && t.Status.State == a2a.TaskStateCompleted && m.Metadata[responseKey] == "message" {
		reply := *m
		reply.Metadata = maps.Clone(m.Metadata)
		delete(reply.Metadata, responseKey)
		if len(reply.Metadata) == 0 {
			reply.Metadata = nil
		}
		return a2a.SendResult{Message: &reply}, nil
	}
	return a2a.SendResult{Task: t}, nil
}

// startLease is the lease a task gets when it needs a runner: the runner's
// first step takes it over; a task whose runner never starts is swept.
func (s *Service) startLease(trigger store.Trigger) store.Lease {
	return store.Lease{Until: s.clock.Now().Add(s.cfg.LeaseDuration), Trigger: trigger}
}
