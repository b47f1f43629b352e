package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

var _ service.ContextStore = (*Store)(nil)

func contextKey(owner, contextID string) string { return owner + "\x00" + contextID }

// recordInContext counts a new task in its context, creating the context
// (and binding the task's session) on its first task. Callers hold s.mu.
func (s *Store) recordInContext(t service.NewTask, now time.Time) {
	key := contextKey(t.Owner, t.Task.ContextID)
	c, ok := s.contexts[key]
	if !ok || !now.Before(c.expiresAt) {
		c = &contextEntry{rec: service.ContextRecord{Owner: t.Owner, ContextID: t.Task.ContextID}}
		s.contexts[key] = c
	}
	c.rec.TaskCount++
	c.rec.UpdatedAt = t.Task.Status.Timestamp
	if c.rec.SessionID == "" {
		c.rec.SessionID = t.SessionID
	}
	c.expiresAt = now.Add(2 * s.taskTTL)
}

// liveContext returns an owner's unexpired context. Callers hold s.mu.
func (s *Store) liveContext(owner, contextID string, now time.Time) *contextEntry {
	c, ok := s.contexts[contextKey(owner, contextID)]
	if !ok || !now.Before(c.expiresAt) {
		return nil
	}
	return c
}

// GetContext implements service.ContextStore.
func (s *Store) GetContext(_ context.Context, owner, contextID string) (*service.ContextRecord, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.liveContext(owner, contextID, now)
	if c == nil {
		return nil, service.ErrNotFound
	}
	rec := c.rec
	return &rec, nil
}

// ListContexts implements service.ContextStore. The cursor is the
// UpdatedAt and context id of the page's last context.
func (s *Store) ListContexts(_ context.Context, q service.ContextQuery) (service.ContextPage, error) {
	afterTS, afterID, hasCursor := strings.Cut(q.Cursor, "|")
	if q.Cursor != "" && !hasCursor {
		return service.ContextPage{}, a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
	}
	pageSize := q.PageSize
	if pageSize <= 0 {
		pageSize = a2a.DefaultPageSize
	}
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var match []service.ContextRecord
	for _, c := range s.contexts {
		if c.rec.Owner == q.Owner && now.Before(c.expiresAt) {
			match = append(match, c.rec)
		}
	}
	slices.SortFunc(match, func(a, b service.ContextRecord) int {
		return cmp.Or(cmp.Compare(b.UpdatedAt, a.UpdatedAt), cmp.Compare(b.ContextID, a.ContextID))
	})
	start := 0
	if hasCursor {
		start = len(match)
		for i, c := range match {
			if c.UpdatedAt < afterTS || (c.UpdatedAt == afterTS && c.ContextID < afterID) {
				start = i
				break
			}
		}
	}
	end := min(start+pageSize, len(match))
	page := service.ContextPage{Contexts: match[start:end:end]}
	if end < len(match) {
		last := match[end-1]
		page.NextCursor = last.UpdatedAt + "|" + last.ContextID
	}
	return page, nil
}

// ClearContext implements service.ContextStore.
func (s *Store) ClearContext(_ context.Context, owner, contextID string) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.liveContext(owner, contextID, now) == nil {
		return service.ErrNotFound
	}
	var ids []string
	for id, e := range s.tasks {
		if e.rec.Owner != owner || e.rec.Task.ContextID != contextID || !now.Before(e.expiresAt) {
			continue
		}
		if st := e.rec.Task.Status.State; !st.Terminal() {
			return &service.ContextLiveError{TaskID: id, State: st}
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		s.drop(id, s.tasks[id])
	}
	delete(s.contexts, contextKey(owner, contextID))
	return nil
}

// SetFeedback implements service.ContextStore.
func (s *Store) SetFeedback(_ context.Context, taskID string, f service.Feedback) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.live(taskID, now)
	if e == nil {
		return service.ErrNotFound
	}
	if st := e.rec.Task.Status.State; !st.Terminal() {
		return &service.ConflictError{Reason: service.ConflictState, State: st, Version: e.rec.Version}
	}
	e.rec.Feedback = &f
	return nil
}
