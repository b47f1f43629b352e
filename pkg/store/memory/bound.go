package memory

import (
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// makeRoom makes room for one more task: at the bound it drops the expired
// entries (sweep), then the task that finished first. It refuses with a
// *service.StoreFullError when every task kept is live. Callers hold s.mu.
func (s *Store) makeRoom(now time.Time) error {
	if len(s.tasks) < s.maxTasks {
		return nil
	}
	s.sweep(now)
	for len(s.tasks) >= s.maxTasks {
		if !s.evictFinished() {
			return &service.StoreFullError{Limit: s.maxTasks}
		}
	}
	return nil
}

// evictFinished drops the task that finished first and reports whether
// there was one. Callers hold s.mu.
func (s *Store) evictFinished() bool {
	for len(s.finished) > 0 {
		id := s.finished[0]
		s.finished[0] = ""
		s.finished = s.finished[1:]
		if e, ok := s.tasks[id]; ok && e.rec.Task.Status.State.Terminal() {
			s.drop(id, e)
			return true
		}
	}
	s.finished = nil // let the backing array go
	return false
}

// drop forgets a task and the idempotency records that point to it: a
// retried message of a forgotten task starts a new one rather than
// answering "not found". Callers hold s.mu.
func (s *Store) drop(id string, e *entry) {
	for _, k := range append([]string{e.idemKey}, e.moreIdemKeys...) {
		if r, ok := s.idem[k]; ok && r.taskID == id {
			delete(s.idem, k)
		}
	}
	delete(s.tasks, id)
	ck := contextKey(e.rec.Owner, e.rec.Task.ContextID)
	if tasks := s.contexts[ck]; tasks[id] == e {
		delete(tasks, id)
		if len(tasks) == 0 {
			delete(s.contexts, ck)
		}
	}
}
