package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

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
