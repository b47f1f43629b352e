package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Send implements message/send (SendMessage) with its full result: the
// task SendMessage returns or, when the agent answered the waiting client
// directly (agent.Respond), that Message.
func (s *Service) Send(ctx context.Context, owner string, p a2a.MessageSendParams) (a2a.SendResult, error) {
	t, err := s.SendMessage(ctx, owner, p)
	if err != nil {
		return a2a.SendResult{}, err
	}
	if m := engine.DirectResponse(t); m != nil {
		return a2a.SendResult{Message: m}, nil
	}
	return a2a.SendResult{Task: t}, nil
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
	if cfg.PushNotificationConfig != nil {
		if err := s.pushEnabled(); err != nil {
			return nil, err
		}
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
		w    work
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
	if msg.TaskID == "" {
		// A blocking send run in the request leaves its task to its first
		// step to store (see engine.Unsaved), reading nothing first: a retried
		// send runs the step again (steps are at least once), and its first
		// write, refused, finds the task the first send stored, which is
		// the answer.
		taskID := store.TaskIDFor(owner, msg.MessageID)
		fresh := st.fresh || s.cfg.NoIdempotency
		if fresh {
			taskID = NewID()
		}
		unsaved := blocking && s.inline != nil
		w, err = s.createTask(ctx, owner, taskID, msg, p.Metadata, session, st.push, unsaved, st.fingerprint, fresh)
		if err == nil {
			metrics.From(ctx).Count(metrics.TasksCreated, metrics.DimAgent, s.info.Name)
		}
	} else {
		w.job, w.queued, err = s.continueTask(ctx, owner, msg, p.Metadata, st.push, st.fingerprint)
	}
	if err != nil && store.Refused(err) && len(kept) > 0 {
		s.files.Discard(ctx, kept)
	}
	if err != nil {
		if dup := (*store.DuplicateError)(nil); errors.As(err, &dup) {
			// A retried send: answer with the task the first one made,
			// start nothing. (Or the id of another message: refused.)
			return s.duplicate(ctx, owner, msg.MessageID, dup, st.fingerprint, opts)
		}
		return nil, err
	}
	job := w.job
	if w.queued {
		// The task is at work: the message waits in its inbox for the
		// next step, and the client gets the task as it is.
		return s.read(ctx, owner, job.TaskID, store.GetOptions{HistoryLength: historyLength, IncludeArtifacts: true})
	}
	job.Blocking = blocking
	if err := s.start(ctx, job, w.unsaved); err != nil {
		if len(kept) > 0 {
			s.discardUnstored(ctx, job.TaskID, kept)
		}
		if errors.Is(err, store.ErrTooLarge) {
			// The task's first step could not store it (engine.Unsaved).
			return nil, s.storeError(err, job.TaskID, "params.message")
		}
		return nil, err
	}
	if u := w.unsaved; u != nil && u.Refused != nil {
		// The step's first write found the task of a send of the same
		// message id: it stored nothing, and nothing names this send's
		// files.
		if len(kept) > 0 {
			s.files.Discard(ctx, kept)
		}
		return s.duplicate(ctx, owner, msg.MessageID, u.Refused, st.fingerprint, opts)
	}
	if u := w.unsaved; u != nil && u.Finished() {
		// The step stored the task once, finished: it is the answer.
		rec := u.Task.Record(s.clock.Now())
		return s.wire(ctx, withHistory(&rec, historyLength)), nil
	}
	if !blocking && w.stored {
		// The task as this send created it is the answer: a non-blocking
		// send does not wait to see what its runner made of it.
		return s.wire(ctx, withHistory(&w.created, historyLength)), nil
	}
	if blocking {
		// With a store that wakes whoever waits for the task to settle and
		// the step just started in this process (the local server's
		// runner), the send waits first and reads its answer once. An
		// inline runner returns with the task settled: the answer is then
		// read once, without waiting.
		if _, wakes := s.store.(store.SettleWaiter); !wakes || s.inline != nil {
			rec, err := s.get(ctx, owner, job.TaskID, opts)
			if err != nil {
				return nil, err
			}
			if rec.Task.Status.State.Settled() || s.dueAfter(rec, st.waitUntil) {
				return s.wire(ctx, rec), nil
			}
		}
		// The work goes on here or elsewhere (a step handed over, an
		// interrupt shown by a state machine execution): wait for it with
		// what is left of the budget.
		s.waitSettled(ctx, job.TaskID, st.waitUntil)
	}
	return s.read(ctx, owner, job.TaskID, opts)
}

// work is what a send stored, and what it starts.
type work struct {
	job engine.Job
	// created is the new task as the send stored it, when stored;
	// unsaved, instead, is the new task its first step stores
	// (InlineRunner). Neither is set for a message to an existing task.
	created store.TaskRecord
	stored  bool
	unsaved *engine.Unsaved
	// queued says that the message went to the inbox of a task at work:
	// there is nothing to start.
	queued bool
}

// createTask stores a new task, taskID (store.TaskIDFor its first
// message), or, when unsaved, leaves it to its first step to store
// (engine.Unsaved). The task is bound to an agent session
// (metadata.shared.session.id, in the task's metadata and in the request
// metadata its steps see): the one the request names, else the one bound
// to its context, else a new one, which the store binds to a new context.
func (s *Service) createTask(ctx context.Context, owner, taskID string, msg a2a.Message, md a2a.Metadata, session string, push *store.PushConfig, unsaved bool, fingerprint string, fresh bool) (work, error) {
	// The context's binding is known for a new context, and once read.
	bindingKnown := msg.ContextID == ""
	if session == "" && msg.ContextID != "" {
		bound, err := s.store.ContextSession(ctx, owner, msg.ContextID)
		switch {
		case err == nil:
			session = bound
		case !errors.Is(err, store.ErrNotFound):
			return work{}, fmt.Errorf("read context %s: %w", msg.ContextID, err)
		}
		bindingKnown = true
	}
	if session == "" {
		session = NewID()
	}
	if msg.ContextID == "" {
		msg.ContextID = NewID()
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
	job := engine.Job{TaskID: taskID, Message: &msg}
	if unsaved {
		// Refused now what the first step could not store, before the
		// agent runs for nothing (every store holds store.MaxContentBytes).
		if err := fits(&msg, md); err != nil {
			return work{}, s.storeError(err, taskID, "params.message")
		}
		return work{job: job, unsaved: &engine.Unsaved{Task: nt}}, nil
	}
	rec := nt.Record(s.clock.Now())
	if err := s.store.CreateTask(ctx, nt); err != nil {
		return work{}, s.storeError(err, taskID, "params.message")
	}
	return work{job: job, created: rec, stored: true}, nil
}

// fits reports, as every store would (store.CheckContent), a message or
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

// continueTask appends a user message to a task that is not finished. An
// interrupted task is resumed: when it waits on an interrupt binding, the
// message is the reply to it and resolves it (see resolve). A task at work
// (submitted or working) keeps working: the message goes to its inbox for
// the agent's next step, and queued is true (nothing to start). The state check is left to the conditional
// update, which checks the idempotency record first: a retried message is
// recognised as a duplicate even after the task moved on. An inline push
// config is stored before the task resumes, so it hears of every change the
// message causes.
func (s *Service) continueTask(ctx context.Context, owner string, msg a2a.Message, md a2a.Metadata, push *store.PushConfig, fingerprint string) (job engine.Job, queued bool, err error) {
	idemKey := msg.MessageID
	if s.cfg.NoIdempotency {
		idemKey = ""
	}
	for attempt := 0; ; attempt++ {
		rec, err := s.get(ctx, owner, msg.TaskID, store.GetOptions{})
		if err != nil {
			return engine.Job{}, false, err
		}
		if push != nil && attempt == 0 {
			if err := s.store.PutPushConfig(ctx, *push); err != nil {
				return engine.Job{}, false, s.pushStoreError(err, rec.Task.ID, "params.configuration.pushNotificationConfig")
			}
		}
		if msg.ContextID != "" && msg.ContextID != rec.Task.ContextID {
			return engine.Job{}, false, a2a.InvalidParams("params.message.contextId", "%q does not match the context %q of task %s", msg.ContextID, rec.Task.ContextID, rec.Task.ID)
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
				return engine.Job{}, false, notContinuable(rec.Task.ID, ce.State)
			}
			if err != nil {
				return engine.Job{}, false, s.storeError(err, rec.Task.ID, "params.message")
			}
			return engine.Job{TaskID: rec.Task.ID, Message: &msg}, true, nil
		}
		var reply *agent.Reply
		if rec.Task.Status.State.Interrupted() {
			if reply, err = replyFromMessage(&rec.Task, &msg); err != nil {
				return engine.Job{}, false, err
			}
			if reply.RequestID != "" {
				b, err := s.binding(ctx, owner, reply.RequestID, "", a2a.MethodMessageSend)
				if err == nil {
					job, err := s.resolve(ctx, owner, b, rec, msg, reply, idemKey, fingerprint, md)
					return job, false, err
				}
				if !errors.Is(err, &a2a.Error{Code: a2a.CodeInterruptRequestNotFound}) {
					return engine.Job{}, false, err
				}
				// No binding (it aged out): a plain continuation.
			}
		}
		_, err = s.store.UpdateTask(ctx, s.resumption(rec, owner, msg, idemKey, fingerprint, md, nil))
		var ce *store.ConflictError
		if errors.As(err, &ce) {
			if !ce.State.Terminal() && attempt < maxUpdateAttempts {
				continue // another write landed first: read the task again
			}
			return engine.Job{}, false, notContinuable(rec.Task.ID, ce.State)
		}
		if err != nil {
			return engine.Job{}, false, s.storeError(err, rec.Task.ID, "params.message")
		}
		return engine.Job{TaskID: rec.Task.ID, Message: &msg, Reply: reply}, false, nil
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
		Message:   &a2a.Message{Role: a2a.RoleAgent, MessageID: NewID(), TaskID: taskID, Parts: []a2a.Part{a2a.TextPart("The task could not be started; send the message again.")}},
		Timestamp: s.now(),
	}})
	if err != nil && !errors.Is(err, store.ErrNotFound) { // not found: never stored (engine.Unsaved), nothing to mark
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

// waitSettled waits until the task is terminal or interrupted, at most
// until until: at once when the store says it is (a store.SettleWaiter),
// else by polls that start after a first pause (the caller has just read
// it unsettled). A timeout is not an error: the caller answers
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

// startLease is the lease a task gets when it needs a runner: the runner's
// first step takes it over; a task whose runner never starts is swept.
func (s *Service) startLease(trigger store.Trigger) store.Lease {
	return store.Lease{Until: s.clock.Now().Add(s.cfg.LeaseDuration), Trigger: trigger}
}
