package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The Bindu extension methods: feedback on a finished task, and the
// caller's contexts.

// Feedback implements tasks/feedback: a rating (1-5) and an optional
// comment on one of the caller's finished tasks. Feedback on a task that is
// not finished is refused with -32602.
func (s *Service) Feedback(ctx context.Context, owner string, p a2a.TaskFeedbackParams) (*a2a.OKResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	rec, err := s.get(ctx, owner, p.TaskID, store.GetOptions{})
	if err != nil {
		return nil, err
	}
	if st := rec.Task.Status.State; !st.Terminal() {
		return nil, notFinished(p.TaskID, st)
	}
	err = s.store.SetFeedback(ctx, p.TaskID, store.Feedback{Rating: p.Rating, Comment: p.Comment, CreatedAt: s.clock.Now().UTC()})
	var ce *store.ConflictError
	if errors.As(err, &ce) {
		return nil, notFinished(p.TaskID, ce.State)
	}
	if err != nil {
		return nil, s.storeError(err, p.TaskID, "params.taskId")
	}
	return &a2a.OKResult{OK: true}, nil
}

func notFinished(taskID string, st a2a.TaskState) error {
	return a2a.InvalidParams("params.taskId", "task %s is %s; feedback is taken on finished tasks (completed, canceled, failed, rejected)", taskID, st)
}

// ListContexts implements contexts/list: the caller's contexts, the most
// recently used first (by the creation of their latest task).
func (s *Service) ListContexts(ctx context.Context, owner string, p a2a.ListContextsParams) (*a2a.ListContextsResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	size, cursor, err := pageOf(owner, p.PageSize, p.PageToken)
	if err != nil {
		return nil, err
	}
	page, err := s.store.ListContexts(ctx, store.ContextQuery{Owner: owner, PageSize: size, Cursor: cursor})
	if err != nil {
		return nil, fmt.Errorf("list contexts: %w", err)
	}
	res := &a2a.ListContextsResult{Contexts: make([]a2a.ContextInfo, len(page.Contexts))}
	for i, c := range page.Contexts {
		res.Contexts[i] = a2a.ContextInfo{ContextID: c.ContextID, TaskCount: c.TaskCount, UpdatedAt: c.UpdatedAt}
	}
	res.NextPageToken = nextPageToken(owner, page.NextCursor)
	return res, nil
}

// ClearContext implements contexts/clear: the caller's context and its
// tasks are removed (no longer readable or listed). A context with a task
// still running or waiting for input is refused with -32021 (cancel the
// task first); an unknown context is -32020.
func (s *Service) ClearContext(ctx context.Context, owner string, p a2a.ClearContextParams) (*a2a.OKResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	err := s.store.ClearContext(ctx, owner, p.ContextID)
	var le *store.ContextLiveError
	switch {
	case err == nil:
		return &a2a.OKResult{OK: true}, nil
	case errors.Is(err, store.ErrNotFound):
		return nil, a2a.Errorf(a2a.CodeContextNotFound, "context %s not found", p.ContextID)
	case errors.As(err, &le):
		return nil, a2a.Errorf(a2a.CodeContextNotCancelable, "context %s has task %s %s; cancel it (or wait until it finishes), then clear the context", p.ContextID, le.TaskID, le.State).
			WithData(map[string]any{"contextId": p.ContextID, "taskId": le.TaskID, "state": string(le.State)})
	}
	return nil, fmt.Errorf("clear context %s: %w", p.ContextID, err)
}
