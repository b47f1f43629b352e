package memory

import (
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// entryBytes is what a task takes beyond the JSON size of its content:
// its entry, record, ids and map entries (measured by BenchmarkEntryBytes,
// whose tasks keep an idempotency record beside them: a one-step task of
// "hello" takes some 2.2 KB).
const entryBytes = 1450

// Bytes is the store's estimate of the bytes its tasks take: for each,
// entryBytes and the JSON size of its messages, artifacts, request
// metadata and interrupt message (pkg/a2a's ApproxSize). MaxBytes bounds
// it.
func (s *Store) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// makeRoom makes room for one more task of size bytes: at a bound it
// drops the expired entries (sweep), then the tasks that finished first,
// until the task fits. It refuses with a *store.StoreFullError when the
// live tasks leave no room. Callers hold s.mu.
func (s *Store) makeRoom(now time.Time, size int) error {
	if s.fits(size) {
		return nil
	}
	s.sweep(now)
	for !s.fits(size) {
		if !s.evictFinished("") {
			if len(s.tasks) >= s.maxTasks {
				return &store.StoreFullError{Limit: s.maxTasks}
			}
			return &store.StoreFullError{Bytes: s.maxBytes}
		}
	}
	return nil
}

// fits reports whether a new task of size bytes fits within both bounds.
// Callers hold s.mu.
func (s *Store) fits(size int) bool {
	return len(s.tasks) < s.maxTasks && s.bytes+int64(size) <= s.maxBytes
}

// grow counts n more bytes (fewer when negative) for e, then, past the
// bound, evicts the tasks that finished first, never e itself (a client
// may be about to read the answer it just got). Callers hold s.mu.
func (s *Store) grow(e *entry, n int, now time.Time) {
	e.bytes += n
	s.bytes += int64(n)
	if s.bytes <= s.maxBytes {
		return
	}
	s.sweep(now)
	for s.bytes > s.maxBytes && s.evictFinished(e.rec.Task.ID) {
	}
}

// evictFinished drops the task that finished first, except keep, and
// reports whether there was one. Callers hold s.mu.
func (s *Store) evictFinished(keep string) bool {
	for i := 0; i < len(s.finished); {
		id := s.finished[i]
		e, ok := s.tasks[id]
		switch {
		case ok && id == keep:
			i++
			continue
		case ok && e.rec.Task.Status.State.Terminal():
			s.forgetFinished(i)
			s.drop(id, e)
			return true
		}
		s.forgetFinished(i) // gone since
	}
	if len(s.finished) == 0 {
		s.finished = nil // let the backing array go
	}
	return false
}

// forgetFinished removes the i-th finished id, in constant time for the
// first (the usual case). Callers hold s.mu.
func (s *Store) forgetFinished(i int) {
	if i == 0 {
		s.finished[0] = ""
		s.finished = s.finished[1:]
		return
	}
	s.finished = append(s.finished[:i], s.finished[i+1:]...)
}

// drop forgets a task and the idempotency records that point to it: a
// retried message of a forgotten task starts a new one rather than
// answering "not found". Callers hold s.mu.
func (s *Store) drop(id string, e *entry) {
	for _, k := range e.idemKeys {
		s.forgetRecord(id, k)
	}
	delete(s.tasks, id)
	s.bytes -= int64(e.bytes)
	s.unlink(e)
}

// forgetRecord deletes the idempotency record key if it names task id.
// Callers hold s.mu.
func (s *Store) forgetRecord(id string, key ownerKey) {
	if r, ok := s.idem[key]; ok && r.taskID == id {
		delete(s.idem, key)
	}
}
