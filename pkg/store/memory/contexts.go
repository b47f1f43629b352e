package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

var _ store.ContextStore = (*Store)(nil)

// Contexts are derived from the tasks, as the DynamoDB store has them: an
// owner's context is its live tasks that share a contextId; it is gone
// once the last of them expired or was cleared. Its UpdatedAt is the
// newest status timestamp of those tasks (ties: the greatest task id), and
// its session the one bound to the context when that newest task was
// created (entry.contextSession).

func contextKey(owner, contextID string) ownerKey { return ownerKey{owner, contextID} }

// links are an entry's neighbours among the tasks of its context.
type links struct{ prev, next *entry }

// link adds e, a new entry, to the tasks of its context. Callers hold
// s.mu.
func (s *Store) link(e *entry) {
	ck := contextKey(e.rec.Owner, e.rec.Task.ContextID)
	if first := s.contexts[ck]; first != nil {
		e.inContext.next = first
		first.inContext.prev = e
	}
	s.contexts[ck] = e
}

// unlink removes e from the tasks of its context, once. Callers hold
// s.mu.
func (s *Store) unlink(e *entry) {
	prev, next := e.inContext.prev, e.inContext.next
	if prev == nil {
		ck := contextKey(e.rec.Owner, e.rec.Task.ContextID)
		if s.contexts[ck] != e {
			return // not linked
		}
		if next == nil {
			delete(s.contexts, ck)
		} else {
			s.contexts[ck] = next
		}
	} else {
		prev.inContext.next = next
	}
	if next != nil {
		next.inContext.prev = prev
	}
	e.inContext = links{}
}

// contextTasks returns the live tasks of an owner's context, newest status
// first. Callers hold s.mu.
func (s *Store) contextTasks(owner, contextID string, now time.Time) []*entry {
	var tasks []*entry
	for e := s.contexts[contextKey(owner, contextID)]; e != nil; e = e.inContext.next {
		if now.Before(e.expiresAt) {
			tasks = append(tasks, e)
		}
	}
	slices.SortFunc(tasks, newestStatusFirst)
	return tasks
}

// newestStatusFirst orders tasks as the task list does: newest status
// timestamp first, ties by task id, descending.
func newestStatusFirst(a, b *entry) int {
	return cmp.Or(cmp.Compare(b.rec.Task.Status.Timestamp, a.rec.Task.Status.Timestamp), cmp.Compare(b.rec.Task.ID, a.rec.Task.ID))
}

// boundSession is the session bound to an owner's context: that of its
// newest live task, or "". Callers hold s.mu.
func (s *Store) boundSession(owner, contextID string, now time.Time) string {
	if tasks := s.contextTasks(owner, contextID, now); len(tasks) > 0 {
		return tasks[0].contextSession
	}
	return ""
}

// contextRecord is the record of the context whose live tasks, newest
// status first, are tasks (not empty).
func contextRecord(tasks []*entry) store.ContextRecord {
	newest := tasks[0]
	return store.ContextRecord{Owner: newest.rec.Owner, ContextID: newest.rec.Task.ContextID, TaskCount: len(tasks),
		UpdatedAt: newest.rec.Task.Status.Timestamp, SessionID: newest.contextSession}
}

// GetContext implements store.ContextStore.
func (s *Store) GetContext(_ context.Context, owner, contextID string) (*store.ContextRecord, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	tasks := s.contextTasks(owner, contextID, now)
	if len(tasks) == 0 {
		return nil, store.ErrNotFound
	}
	rec := contextRecord(tasks)
	return &rec, nil
}

// ContextSession implements store.ContextStore.
func (s *Store) ContextSession(ctx context.Context, owner, contextID string) (string, error) {
	c, err := s.GetContext(ctx, owner, contextID)
	if err != nil {
		return "", err
	}
	return c.SessionID, nil
}

// ListContexts implements store.ContextStore. The cursor is the status
// timestamp and task id of the newest task of the page's last context.
func (s *Store) ListContexts(_ context.Context, q store.ContextQuery) (store.ContextPage, error) {
	afterTS, afterID, hasCursor := strings.Cut(q.Cursor, "|")
	if q.Cursor != "" && !hasCursor {
		return store.ContextPage{}, a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
	}
	pageSize := positive.Or(q.PageSize, a2a.DefaultPageSize)
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	byContext := map[string][]*entry{}
	for _, e := range s.tasks {
		if e.rec.Owner == q.Owner && now.Before(e.expiresAt) {
			byContext[e.rec.Task.ContextID] = append(byContext[e.rec.Task.ContextID], e)
		}
	}
	type listed struct {
		rec    store.ContextRecord
		newest *entry
	}
	var match []listed
	for _, tasks := range byContext {
		slices.SortFunc(tasks, newestStatusFirst)
		ts, id := tasks[0].rec.Task.Status.Timestamp, tasks[0].rec.Task.ID
		if !hasCursor || ts < afterTS || (ts == afterTS && id < afterID) {
			match = append(match, listed{contextRecord(tasks), tasks[0]})
		}
	}
	slices.SortFunc(match, func(a, b listed) int { return newestStatusFirst(a.newest, b.newest) })
	end := min(pageSize, len(match))
	var page store.ContextPage
	for _, m := range match[:end] {
		page.Contexts = append(page.Contexts, m.rec)
	}
	if end < len(match) {
		last := match[end-1].newest
		page.NextCursor = last.rec.Task.Status.Timestamp + "|" + last.rec.Task.ID
	}
	return page, nil
}

// ClearContext implements store.ContextStore.
func (s *Store) ClearContext(_ context.Context, owner, contextID string) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	tasks := s.contextTasks(owner, contextID, now)
	if len(tasks) == 0 {
		return store.ErrNotFound
	}
	for _, e := range tasks {
		if st := e.rec.Task.Status.State; !st.Terminal() {
			return &store.ContextLiveError{TaskID: e.rec.Task.ID, State: st}
		}
	}
	for _, e := range tasks {
		s.drop(e.rec.Task.ID, e)
	}
	return nil
}

// SetFeedback implements store.ContextStore.
func (s *Store) SetFeedback(_ context.Context, taskID string, f store.Feedback) error {
	return s.editTask(taskID, func(e *entry, _ time.Time) error {
		if st := e.rec.Task.Status.State; !st.Terminal() {
			return &store.ConflictError{Reason: store.ConflictState, State: st, Version: e.rec.Version}
		}
		e.rec.Feedback = &f
		return nil
	})
}
