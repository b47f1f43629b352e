package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// A task that awaits execution carries awaitingJob (what the runner needs
// besides the stored task, in the runner's own encoding: see
// inline.Record) and awaitingSince (epoch seconds). The inline runner of
// the Lambda functions records it for every job it cannot run within its
// request (non-blocking sends: a Lambda is frozen once it answers). The
// next status change of the task (a runner's first step, a cancel) removes
// it. The Step Functions runner that follows this one starts executions
// instead; a sweeper can find tasks left awaiting through these
// attributes.

// Defer records on the task that it awaits execution, without changing
// the task's version: job is the work, opaque to the store. A task that
// does not exist or expired is store.ErrNotFound; a terminal task needs
// no runner: Defer records nothing and returns nil.
func (s *Store) Defer(ctx context.Context, taskID string, job []byte) error {
	if !validTaskID(taskID) {
		return store.ErrNotFound
	}
	t := s.times()
	set := expression.Set(expression.Name(attrAwaitingJob), expression.Value(string(job))).
		Set(expression.Name(attrAwaitingSince), expression.Value(t.unix))
	cond := s.liveTaskCond(t).
		And(expression.Not(inStates(terminalStates)))
	e, err := expression.NewBuilder().WithUpdate(set).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build update: %w", err)
	}
	_, err = s.updateItem(ctx, taskUpdateIf(taskID, e))
	old, refused := conditionFailedItem(err)
	if !refused {
		return otherFailure(err, "the job of task "+taskID)
	}
	_, err = liveTask(old, t)
	return err // nil: the task is terminal
}

// DeferredJob returns the job Defer recorded on a task and when, or nil
// when the task awaits none. An unknown or expired task is
// store.ErrNotFound.
func (s *Store) DeferredJob(ctx context.Context, taskID string) ([]byte, time.Time, error) {
	p, err := s.readPartition(ctx, taskID, store.GetOptions{})
	if err != nil {
		return nil, time.Time{}, err
	}
	if p.task.AwaitingJob == "" {
		return nil, time.Time{}, nil
	}
	return []byte(p.task.AwaitingJob), time.Unix(p.task.AwaitingSince, 0).UTC(), nil
}
