package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The interrupt callbacks: a client answers the question or permission an
// input-required task asks through a2a.interrupt.*, or simply by sending a
// message to the task (continueTask). Either way the reply is accepted once:
// the binding is resolved and the task resumes in one store operation.

// ReplyPermission implements a2a.interrupt.permission.reply.
func (s *Service) ReplyPermission(ctx context.Context, owner string, p a2a.PermissionReplyParams) (*a2a.InterruptReplyResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	text := "permission: " + p.Reply
	if p.Message != "" {
		text += ": " + p.Message
	}
	reply := agent.Reply{RequestID: p.RequestID, Type: a2a.InterruptPermission, Permission: p.Reply, Text: p.Message}
	return s.answer(ctx, owner, a2a.MethodInterruptPermissionReply, reply, text)
}

// ReplyQuestion implements a2a.interrupt.question.reply.
func (s *Service) ReplyQuestion(ctx context.Context, owner string, p a2a.QuestionReplyParams) (*a2a.InterruptReplyResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	reply := agent.Reply{RequestID: p.RequestID, Type: a2a.InterruptQuestion, Answers: p.Answers, Text: engine.AnswersText(p.Answers)}
	return s.answer(ctx, owner, a2a.MethodInterruptQuestionReply, reply, reply.Text)
}

// RejectQuestion implements a2a.interrupt.question.reject.
func (s *Service) RejectQuestion(ctx context.Context, owner string, p a2a.QuestionRejectParams) (*a2a.InterruptReplyResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	reply := agent.Reply{RequestID: p.RequestID, Type: a2a.InterruptQuestion, Rejected: true}
	return s.answer(ctx, owner, a2a.MethodInterruptQuestionReject, reply, "(declined to answer)")
}

// ListInterrupts implements a2a.interrupt.list: the caller's pending
// interrupts, to rediscover them after reconnecting.
func (s *Service) ListInterrupts(ctx context.Context, owner string, p a2a.ListInterruptsParams) (*a2a.ListInterruptsResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	bs, err := s.store.ListInterrupts(ctx, owner)
	if err != nil {
		return nil, fmt.Errorf("list interrupts: %w", err)
	}
	res := &a2a.ListInterruptsResult{Items: []a2a.InterruptItem{}}
	for _, b := range bs {
		if p.Type != "" && b.Type != p.Type {
			continue
		}
		details := b.Details
		if details == nil {
			details = map[string]any{}
		}
		res.Items = append(res.Items, a2a.InterruptItem{
			RequestID: b.RequestID, Type: b.Type, TaskID: b.TaskID, ContextID: b.ContextID,
			Details: details, ExpiresAt: a2a.FormatTime(b.ActiveUntil),
		})
	}
	return res, nil
}

// methodFor names the callback that answers an interrupt type.
func methodFor(typ string) string {
	if typ == a2a.InterruptPermission {
		return a2a.MethodInterruptPermissionReply
	}
	return a2a.MethodInterruptQuestionReply + " or " + a2a.MethodInterruptQuestionReject
}

// binding finds the caller's interrupt and checks that it still takes a
// reply of type want ("" accepts any type).
func (s *Service) binding(ctx context.Context, owner, requestID, want, method string) (*store.InterruptBinding, error) {
	b, err := s.store.GetInterrupt(ctx, requestID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && b.Owner != owner) {
		return nil, a2a.InterruptError(a2a.CodeInterruptRequestNotFound, requestID, "interrupt request %s not found", requestID)
	}
	if err != nil {
		return nil, fmt.Errorf("interrupt %s: %w", requestID, err)
	}
	switch {
	case !s.clock.Now().Before(b.ActiveUntil):
		return nil, a2a.InterruptError(a2a.CodeInterruptRequestExpired, requestID, "interrupt request %s expired at %s; its task no longer waits for a reply", requestID, a2a.FormatTime(b.ActiveUntil))
	case want != "" && b.Type != want:
		return nil, a2a.InterruptError(a2a.CodeInterruptTypeMismatch, requestID, "interrupt request %s is a %s request; %s cannot answer it, use %s", requestID, b.Type, method, methodFor(b.Type))
	case b.Resolved:
		return nil, a2a.InterruptError(a2a.CodeInterruptRequestNotFound, requestID, "interrupt request %s was already answered", requestID)
	}
	return b, nil
}

// answer resolves an interrupt through a callback method and resumes its
// task.
func (s *Service) answer(ctx context.Context, owner, method string, reply agent.Reply, text string) (*a2a.InterruptReplyResult, error) {
	b, err := s.binding(ctx, owner, reply.RequestID, reply.Type, method)
	if err != nil {
		return nil, err
	}
	msg := a2a.Message{Role: a2a.RoleUser, MessageID: NewID(), TaskID: b.TaskID, ContextID: b.ContextID,
		Parts: []a2a.Part{a2a.TextPart(text)}}
	job, err := s.resolve(ctx, owner, b, nil, msg, &reply, "", "", nil)
	if err != nil {
		return nil, err
	}
	if err := s.start(ctx, job, nil); err != nil {
		return nil, err
	}
	return &a2a.InterruptReplyResult{OK: true, RequestID: reply.RequestID}, nil
}

// resolve stores a reply: the user's message and a working status whose
// message shows the interrupt resolved, together with the binding's
// resolution. rec, when set, is b's task as the caller just read it, which
// the first write is conditioned on instead of reading it again. idemKey,
// when set, makes a retried message/send a duplicate.
func (s *Service) resolve(ctx context.Context, owner string, b *store.InterruptBinding, rec *store.TaskRecord, msg a2a.Message, reply *agent.Reply, idemKey, fingerprint string, md a2a.Metadata) (engine.Job, error) {
	resolved := &a2a.Message{Role: a2a.RoleAgent, MessageID: NewID(), TaskID: b.TaskID, ContextID: b.ContextID,
		Parts: []a2a.Part{a2a.TextPart("Reply received; the agent continues.")}}
	a2a.SetInterrupt(resolved, a2a.SharedInterruptInfo{RequestID: b.RequestID, Type: b.Type, Phase: a2a.InterruptPhaseResolved, Resolution: engine.Resolution(reply)})
	for attempt := 0; ; attempt++ {
		if attempt > 0 || rec == nil || rec.Task.ID != b.TaskID {
			var err error
			if rec, err = s.get(ctx, owner, b.TaskID, store.GetOptions{}); err != nil {
				return engine.Job{}, err
			}
		}
		_, err := s.store.ResolveInterrupt(ctx, b.RequestID, s.resumption(rec, owner, msg, idemKey, fingerprint, md, resolved))
		var (
			ce *store.ConflictError
			ie *store.InterruptConflictError
		)
		switch {
		case err == nil:
			logfields.AddTask(ctx, b.TaskID, b.ContextID)
			metrics.From(ctx).Count(metrics.InterruptsAnswered, metrics.DimAgent, s.info.Name)
			return engine.Job{TaskID: b.TaskID, Message: &msg, Reply: reply, TaskToken: b.TaskToken}, nil
		case errors.As(err, &ce):
			if ce.Reason == store.ConflictVersion && ce.State.Interrupted() && attempt < maxUpdateAttempts {
				continue
			}
			return engine.Job{}, notContinuable(b.TaskID, ce.State)
		case errors.As(err, &ie) && ie.Reason == store.InterruptExpired:
			return engine.Job{}, a2a.InterruptError(a2a.CodeInterruptRequestExpired, b.RequestID, "interrupt request %s expired; its task no longer waits for a reply", b.RequestID)
		case errors.As(err, &ie):
			return engine.Job{}, a2a.InterruptError(a2a.CodeInterruptRequestNotFound, b.RequestID, "interrupt request %s was already answered", b.RequestID)
		case errors.Is(err, store.ErrNotFound):
			return engine.Job{}, a2a.InterruptError(a2a.CodeInterruptRequestNotFound, b.RequestID, "interrupt request %s not found", b.RequestID)
		}
		return engine.Job{}, s.storeError(err, b.TaskID, "params")
	}
}

// resumption is the update that resumes rec, an interrupted task, with
// the client's message msg: the message, a working status (whose message,
// when set, shows the interrupt resolved) and the lease its runner takes
// over. idemKey, when set, makes a retried message/send a duplicate.
func (s *Service) resumption(rec *store.TaskRecord, owner string, msg a2a.Message, idemKey, fingerprint string, md a2a.Metadata, status *a2a.Message) store.Update {
	return store.Update{
		TaskID:          rec.Task.ID,
		IfVersion:       rec.Version,
		IfStates:        []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired},
		Messages:        []a2a.Message{msg},
		IdempotencyKey:  idemKey,
		Fingerprint:     fingerprint,
		Owner:           owner,
		Status:          &a2a.TaskStatus{State: a2a.TaskStateWorking, Message: status, Timestamp: s.now()},
		RequestMetadata: md,
		Lease:           s.startLease(store.TriggerReply),
	}
}

// start hands a job to the runner, or u, a new task not stored yet, to the
// inline runner; a task the runner refuses is failed so that it does not
// wait forever.
func (s *Service) start(ctx context.Context, job engine.Job, u *engine.Unsaved) error {
	var err error
	if u != nil {
		err = s.inline.StartUnsaved(ctx, u)
	} else {
		err = s.runner.Start(ctx, job)
	}
	if err != nil {
		s.failUnstarted(ctx, job.TaskID, err)
		return fmt.Errorf("start task %s: %w", job.TaskID, err)
	}
	return nil
}
