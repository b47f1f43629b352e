// Package memory is an in-process TaskStore for the local server and tests.
// It has the semantics of the DynamoDB store (versions, conditional updates,
// first terminal state wins, idempotency records, expiry, size limits) and
// wakes blocking requests as soon as a task changes.
package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// sweepInterval is how often expired entries are dropped from memory;
// reads never depend on it (they check expiry themselves).
const sweepInterval = time.Minute

// Options configure a Store; zero values take the configuration's defaults
// (config.DefaultTaskTTL, config.DefaultIdempotencyWindow,
// config.DefaultMemoryMaxTasks, config.DefaultMemoryMaxBytes).
type Options struct {
	Clock clock.Clock
	// TaskTTL is how long a task lives after its last update.
	TaskTTL time.Duration
	// IdempotencyTTL is how long a (owner, messageId) record lives.
	IdempotencyTTL time.Duration
	// MaxTasks bounds the tasks kept (A2A_MEMORY_MAX_TASKS): at the bound
	// a new task evicts the task that finished first, and is refused with
	// a *store.StoreFullError when every task kept is still live.
	MaxTasks int
	// MaxBytes bounds the bytes the tasks kept take, as Store.Bytes
	// estimates them (A2A_MEMORY_MAX_BYTES): a new task, or a task that
	// grows, evicts the tasks that finished first until they fit; a new task that does not fit beside the live ones
	// is refused with a *store.StoreFullError. A live task is never
	// evicted, so live tasks that grow may pass the bound until they end.
	MaxBytes int64
	// OnChange, when set, is called after every committed change that
	// webhooks are told about (store.TaskChange.Notable) of a task that
	// has push configs, outside the store's lock, in the writer's
	// goroutine: it must not block.
	OnChange func(store.TaskChange)
}

// Store is a goroutine-safe in-memory TaskStore.
type Store struct {
	clock    clock.Clock
	onChange func(store.TaskChange)
	taskTTL  time.Duration
	idemTTL  time.Duration
	maxTasks int
	maxBytes int64

	// closed is what Settled returns when there is nothing to wait for.
	closed chan struct{}

	mu         sync.Mutex
	tasks      map[string]*entry
	idem       map[ownerKey]idemRecord
	interrupts map[string]*store.InterruptBinding
	// contexts holds the newest task of each (owner, context): the first
	// of the context's tasks, linked through their entries (inContext).
	contexts  map[ownerKey]*entry
	lastSweep time.Time
	// finished are the ids of terminal tasks in the order they finished:
	// the eviction order (ids of tasks gone since are skipped).
	finished []string
	// bytes is the sum of the entries' bytes.
	bytes int64
}

type entry struct {
	rec       store.TaskRecord // full history and artifacts
	expiresAt time.Time
	// artBytes are the estimated JSON sizes of the artifacts, in their
	// order.
	artBytes []int
	// bytes estimates what the entry takes: entryBytes, and the
	// estimated JSON size of its messages, artifacts, request metadata
	// and interrupt message.
	bytes int
	// idemKeys are the idempotency records that name the task (its later
	// messages', and its first message's when its id is not that
	// message's own, see create): they go with it.
	idemKeys []ownerKey
	// configs are the task's push notification configs, by id.
	configs map[string]store.PushConfig
	// deliveries are the task's delivery log (see deliveries.go).
	deliveries map[deliveryKey]*store.Delivery
	// settled is closed when the task becomes terminal or interrupted; it is
	// made only when a request waits (Settled), so updates of unwatched tasks
	// allocate nothing.
	settled chan struct{}
	// inbox holds the messages of updates with Inbox set, not taken yet.
	inbox []a2a.Message
	// contextSession is the session bound to the task's context when the
	// task was created (see contexts.go).
	contextSession string
	// inContext links the tasks of one context, newest created first: a
	// context of one task costs no map of its own.
	inContext links
}

type idemRecord struct {
	taskID      string
	fingerprint string
	expiresAt   time.Time
}

var (
	_ store.Store        = (*Store)(nil)
	_ store.SettleWaiter = (*Store)(nil)
)

// New returns an empty store.
func New(opts Options) *Store {
	s := &Store{clock: clock.Or(opts.Clock), onChange: opts.OnChange, taskTTL: opts.TaskTTL, idemTTL: opts.IdempotencyTTL, maxTasks: opts.MaxTasks, maxBytes: opts.MaxBytes,
		tasks: map[string]*entry{}, idem: map[ownerKey]idemRecord{}, interrupts: map[string]*store.InterruptBinding{},
		contexts: map[ownerKey]*entry{},
		closed:   make(chan struct{})}
	close(s.closed)
	s.taskTTL = positive.Or(s.taskTTL, config.DefaultTaskTTL)
	s.idemTTL = positive.Or(s.idemTTL, config.DefaultIdempotencyWindow)
	s.maxTasks = positive.Or(s.maxTasks, config.DefaultMemoryMaxTasks)
	s.maxBytes = positive.Or(s.maxBytes, config.DefaultMemoryMaxBytes)
	return s
}

// ownerKey is an id of an owner's: a message's (the idempotency records)
// or a context's. A struct, not the two strings joined, so that no key is
// made by concatenation.
type ownerKey struct{ owner, id string }

func idemKey(owner, messageID string) ownerKey { return ownerKey{owner, messageID} }

// CreateTask implements store.TaskStore. A task created past submitted
// (its first step ran before it was stored) is a change OnChange hears of.
func (s *Store) CreateTask(_ context.Context, t store.NewTask) error {
	change, err := s.create(t)
	s.notify(change)
	return err
}

func (s *Store) create(t store.NewTask) (*store.TaskChange, error) {
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	size := entryBytes
	for i := range t.Task.History {
		n, err := messageSize("message", &t.Task.History[i])
		if err != nil {
			return nil, err
		}
		size += n
	}
	arts, artBytes, artGrowth, err := applyArtifacts(nil, nil, t.Task.Artifacts, false)
	if err != nil {
		return nil, err
	}
	md, err := metadataSize("request metadata", t.RequestMetadata)
	if err != nil {
		return nil, err
	}
	size += artGrowth + md
	if len(t.PushConfigs) > store.MaxPushConfigs {
		return nil, &store.TooManyConfigsError{Limit: store.MaxPushConfigs}
	}
	now := s.clock.Now()
	firstID := t.Task.History[0].MessageID
	key := idemKey(t.Owner, firstID)

	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.idem[key]; ok && now.Before(r.expiresAt) && !t.NoRecord {
		return nil, s.duplicateOf(r, now, store.IsTaskIDFor(r.taskID, t.Owner, firstID))
	}
	if e, ok := s.tasks[t.Task.ID]; ok && now.Before(e.expiresAt) {
		if store.IsTaskIDFor(t.Task.ID, t.Owner, firstID) && e.rec.Owner == t.Owner {
			return nil, s.duplicateOf(idemRecord{taskID: t.Task.ID, fingerprint: e.rec.Fingerprint}, now, true) // the task is the record
		}
		return nil, fmt.Errorf("memory: task id %s already exists", t.Task.ID)
	}
	if err := s.makeRoom(now, size); err != nil {
		return nil, err
	}
	if old, ok := s.tasks[t.Task.ID]; ok {
		s.drop(t.Task.ID, old) // expired
	}
	bound := t.SessionID
	if !t.BindingKnown {
		if b := s.boundSession(t.Owner, t.Task.ContextID, now); b != "" {
			bound = b
		}
	}
	rec := t.Record(now)
	rec.Task.History = slices.Clone(rec.Task.History)
	rec.Task.Artifacts = arts
	e := &entry{
		artBytes:       artBytes,
		rec:            rec,
		expiresAt:      now.Add(s.taskTTL),
		contextSession: bound,
		bytes:          size,
	}
	task := &e.rec.Task
	s.bytes += int64(size)
	for _, c := range t.PushConfigs {
		if e.configs == nil {
			e.configs = map[string]store.PushConfig{}
		}
		c.TaskID = task.ID
		e.configs[c.Config.ID] = c
	}
	s.tasks[task.ID] = e
	s.link(e)
	var change *store.TaskChange
	if st := task.Status.State; st != a2a.TaskStateSubmitted {
		if st.Terminal() {
			s.finished = append(s.finished, task.ID)
		}
		change = s.change(e, true, t.ArtifactIDs())
	}
	// A task whose id is its first message's own (store.TaskIDFor, as the
	// service makes them) is that message's record while it lives, as on
	// DynamoDB (see idemTask); another keeps one beside it.
	if !t.NoRecord && !store.IsTaskIDFor(task.ID, t.Owner, firstID) {
		s.idem[key] = idemRecord{taskID: task.ID, fingerprint: t.Fingerprint, expiresAt: now.Add(s.idemTTL)}
		e.idemKeys = append(e.idemKeys, key)
	}
	s.sweep(now)
	return change, nil
}

// duplicateOf is the refusal of a message whose record is r: the task it
// names, with its fingerprint and, for the message's own task (own), its
// creation time and the whole task. Callers hold s.mu.
func (s *Store) duplicateOf(r idemRecord, now time.Time, own bool) *store.DuplicateError {
	dup := &store.DuplicateError{TaskID: r.taskID, Fingerprint: r.fingerprint}
	if e, ok := s.tasks[r.taskID]; ok && own && now.Before(e.expiresAt) {
		dup.CreatedAt = e.rec.CreatedAt
		rec := e.rec
		rec.Task.History = slices.Clone(rec.Task.History)
		rec.Task.Artifacts = slices.Clone(rec.Task.Artifacts)
		dup.Task = &rec
	}
	return dup
}

// sweep drops expired tasks, idempotency records and bindings, at most once
// per sweepInterval (it reads every entry). Callers hold s.mu.
func (s *Store) sweep(now time.Time) {
	if now.Sub(s.lastSweep) < sweepInterval {
		return
	}
	s.lastSweep = now
	for id, e := range s.tasks {
		if !now.Before(e.expiresAt) {
			s.drop(id, e)
		}
	}
	for k, r := range s.idem {
		if !now.Before(r.expiresAt) {
			delete(s.idem, k)
		}
	}
	for id, b := range s.interrupts {
		if !now.Before(b.ExpiresAt) {
			delete(s.interrupts, id)
		}
	}
	s.finished = slices.DeleteFunc(s.finished, func(id string) bool { _, ok := s.tasks[id]; return !ok })
}

// live returns the unexpired entry of a task. Callers hold s.mu.
func (s *Store) live(taskID string, now time.Time) *entry {
	e, ok := s.tasks[taskID]
	if !ok || !now.Before(e.expiresAt) {
		return nil
	}
	return e
}

// withTask runs f under the store's lock on the live entry of a task, with
// the time read before locking; a task missing or expired is
// store.ErrNotFound.
func withTask[T any](s *Store, taskID string, f func(e *entry, now time.Time) (T, error)) (T, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.live(taskID, now)
	if e == nil {
		var zero T
		return zero, store.ErrNotFound
	}
	return f(e, now)
}

// editTask is withTask for a change that returns nothing but its error.
func (s *Store) editTask(taskID string, f func(e *entry, now time.Time) error) error {
	_, err := withTask(s, taskID, func(e *entry, now time.Time) (struct{}, error) {
		return struct{}{}, f(e, now)
	})
	return err
}

// GetTask implements store.TaskStore.
func (s *Store) GetTask(_ context.Context, taskID string, opts store.GetOptions) (*store.TaskRecord, error) {
	return withTask(s, taskID, func(e *entry, _ time.Time) (*store.TaskRecord, error) {
		rec := view(&e.rec, opts.HistoryLength, opts.IncludeArtifacts)
		return &rec, nil
	})
}

// view copies a record with the requested part of its history and
// artifacts. Messages and artifacts are shared; the store never modifies
// them in place.
func view(r *store.TaskRecord, historyLength int, artifacts bool) store.TaskRecord {
	c := *r
	h := r.Task.History
	switch {
	case historyLength == 0:
		h = nil
	case historyLength > 0 && historyLength < len(h):
		h = h[len(h)-historyLength:]
	}
	c.Task.History = slices.Clone(h)
	c.Task.Artifacts = nil
	if artifacts {
		c.Task.Artifacts = slices.Clone(r.Task.Artifacts)
	}
	return c
}

// TakeInbox implements store.InboxStore.
func (s *Store) TakeInbox(_ context.Context, taskID string) ([]a2a.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.live(taskID, s.clock.Now())
	if e == nil || len(e.inbox) == 0 {
		return nil, nil
	}
	n := min(len(e.inbox), store.MaxInboxTake)
	taken := slices.Clone(e.inbox[:n])
	e.inbox = slices.Delete(e.inbox, 0, n)
	e.rec.Inbox -= n
	return taken, nil
}

// notify reports a change to OnChange.
func (s *Store) notify(c *store.TaskChange) {
	if c != nil && s.onChange != nil && c.Notable() {
		s.onChange(*c)
	}
}

// change describes the committed record for OnChange. Callers hold s.mu.
func (s *Store) change(e *entry, statusChanged bool, completed []string) *store.TaskChange {
	if s.onChange == nil || len(e.configs) == 0 || (!statusChanged && len(completed) == 0) {
		return nil
	}
	c := &store.TaskChange{Version: e.rec.Version, StatusChanged: statusChanged, ArtifactIDs: completed, SessionID: e.rec.SessionID}
	c.Task = a2a.Task{ID: e.rec.Task.ID, ContextID: e.rec.Task.ContextID, Status: e.rec.Task.Status, Metadata: e.rec.Task.Metadata}
	for id := range e.configs {
		c.PushConfigIDs = append(c.PushConfigIDs, id)
	}
	slices.Sort(c.PushConfigIDs)
	return c
}

// ListTasks implements store.TaskStore. The cursor is the status
// timestamp and id of the last task of the previous page.
func (s *Store) ListTasks(_ context.Context, q store.ListQuery) (store.ListPage, error) {
	afterTS, afterID, hasCursor := strings.Cut(q.Cursor, "|")
	if q.Cursor != "" && !hasCursor {
		// The service binds page tokens to their owner but does not sign
		// them, so a client can forge this part: answer as a bad param.
		return store.ListPage{}, a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
	}
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var match []*entry
	for _, e := range s.tasks {
		t := &e.rec.Task
		if e.rec.Owner != q.Owner || !now.Before(e.expiresAt) ||
			(q.ContextID != "" && t.ContextID != q.ContextID) ||
			(q.State != "" && t.Status.State != q.State) ||
			(q.StatusAfter != "" && t.Status.Timestamp <= q.StatusAfter) {
			continue
		}
		match = append(match, e)
	}
	slices.SortFunc(match, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(b.rec.Task.Status.Timestamp, a.rec.Task.Status.Timestamp), cmp.Compare(b.rec.Task.ID, a.rec.Task.ID))
	})
	page := store.ListPage{Total: len(match)}
	start := 0
	if hasCursor {
		start = len(match)
		for i, e := range match {
			ts, id := e.rec.Task.Status.Timestamp, e.rec.Task.ID
			if ts < afterTS || (ts == afterTS && id < afterID) {
				start = i
				break
			}
		}
	}
	end := min(start+q.PageSize, len(match))
	for _, e := range match[start:end] {
		page.Tasks = append(page.Tasks, view(&e.rec, q.HistoryLength, q.IncludeArtifacts))
	}
	if end < len(match) {
		last := match[end-1].rec.Task
		page.NextCursor = last.Status.Timestamp + "|" + last.ID
	}
	return page, nil
}

// Settled implements store.SettleWaiter.
func (s *Store) Settled(taskID string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.live(taskID, s.clock.Now())
	if e == nil || e.rec.Task.Status.State.Settled() {
		return s.closed
	}
	if e.settled == nil {
		e.settled = make(chan struct{})
	}
	return e.settled
}
