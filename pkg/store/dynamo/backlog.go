package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// A task that awaits execution carries awaitingJob (what the runner needs
// besides the stored task: the id of the triggering message, the interrupt
// reply) and awaitingSince (epoch seconds). The inline runner of the Lambda
// functions records it for every job it cannot run within its request
// (non-blocking sends: a Lambda is frozen once it answers). The next status
// change of the task (a runner's first step, a cancel) removes it. The Step
// Functions runner that follows this one starts executions instead; a
// sweeper can find tasks left awaiting through these attributes.

// deferredJob is the stored form of a service.Job: the message itself is
// in the task's history.
type deferredJob struct {
	MessageID string          `json:"messageId,omitempty"`
	Reply     *agent.Reply    `json:"reply,omitempty"`
	Blocking  bool            `json:"blocking,omitempty"`
	Resume    *service.Resume `json:"resume,omitempty"`
}

// Defer records on the task that job awaits execution, without changing
// the task's version. A task that does not exist or expired is
// store.ErrNotFound; a terminal task needs no runner: Defer records
// nothing and returns nil.
func (s *Store) Defer(ctx context.Context, job service.Job) error {
	if !validTaskID(job.TaskID) {
		return store.ErrNotFound
	}
	d := deferredJob{Reply: job.Reply, Blocking: job.Blocking, Resume: job.Resume}
	if job.Message != nil {
		d.MessageID = job.Message.MessageID
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("dynamo: encode job: %w", err)
	}
	t := s.times()
	set := expression.Set(expression.Name(attrAwaitingJob), expression.Value(string(b))).
		Set(expression.Name(attrAwaitingSince), expression.Value(t.unix))
	cond := s.liveTaskCond(t).
		And(expression.Not(inStates(terminalStates)))
	e, err := expression.NewBuilder().WithUpdate(set).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build update: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: taskKey(job.TaskID), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	old, refused := conditionFailedItem(err)
	if !refused {
		return otherFailure(err, "the job of task "+job.TaskID)
	}
	_, err = liveTask(old, t)
	return err // nil: the task is terminal
}

// DeferredJob returns the job a task awaits and when it was recorded, or a
// nil job when it awaits none. An unknown or expired task is
// store.ErrNotFound.
func (s *Store) DeferredJob(ctx context.Context, taskID string) (*service.Job, time.Time, error) {
	p, err := s.readPartition(ctx, taskID, store.GetOptions{HistoryLength: -1})
	if err != nil {
		return nil, time.Time{}, err
	}
	if p.task.AwaitingJob == "" {
		return nil, time.Time{}, nil
	}
	var d deferredJob
	if err := json.Unmarshal([]byte(p.task.AwaitingJob), &d); err != nil {
		return nil, time.Time{}, fmt.Errorf("dynamo: decode the job of task %s: %w", taskID, err)
	}
	job := &service.Job{TaskID: taskID, Reply: d.Reply, Blocking: d.Blocking, Resume: d.Resume}
	if d.MessageID != "" {
		rec, err := p.record(-1, false)
		if err != nil {
			return nil, time.Time{}, err
		}
		for i := range rec.Task.History {
			if rec.Task.History[i].MessageID == d.MessageID {
				job.Message = &rec.Task.History[i]
			}
		}
	}
	return job, time.Unix(p.task.AwaitingSince, 0).UTC(), nil
}
