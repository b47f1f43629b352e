// Package memory is an in-process TaskStore for the local server and tests.
// It has the semantics of the DynamoDB store (versions, conditional updates,
// first terminal state wins, idempotency records, expiry, size limits) and
// wakes blocking requests as soon as a task changes.
package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Defaults of Options.
const (
	DefaultTaskTTL        = 7 * 24 * time.Hour
	DefaultIdempotencyTTL = 24 * time.Hour
	sweepEvery            = 1024
)

// Clock tells the time.
type Clock interface{ Now() time.Time }

// Options configure a Store; zero values mean defaults.
type Options struct {
	Clock Clock
	// TaskTTL is how long a task lives after its last update.
	TaskTTL time.Duration
	// IdempotencyTTL is how long a (owner, messageId) record lives.
	IdempotencyTTL time.Duration
}

// Store is a goroutine-safe in-memory TaskStore.
type Store struct {
	clock   Clock
	taskTTL time.Duration
	idemTTL time.Duration

	mu      sync.Mutex
	tasks   map[string]*entry
	idem    map[string]idemRecord
	creates int
}

type entry struct {
	rec       service.TaskRecord // full history and artifacts
	expiresAt time.Time
	artBytes  map[string]int // JSON size of each artifact
	changed   chan struct{}  // closed and replaced on every change
}

type idemRecord struct {
	taskID    string
	expiresAt time.Time
}

var (
	_ service.TaskStore    = (*Store)(nil)
	_ service.ChangeWaiter = (*Store)(nil)
)

// New returns an empty store.
func New(opts Options) *Store {
	s := &Store{clock: opts.Clock, taskTTL: opts.TaskTTL, idemTTL: opts.IdempotencyTTL,
		tasks: map[string]*entry{}, idem: map[string]idemRecord{}}
	if s.clock == nil {
		s.clock = service.SystemClock{}
	}
	if s.taskTTL <= 0 {
		s.taskTTL = DefaultTaskTTL
	}
	if s.idemTTL <= 0 {
		s.idemTTL = DefaultIdempotencyTTL
	}
	return s
}

func idemKey(owner, messageID string) string { return owner + "\x00" + messageID }

// CreateTask implements service.TaskStore.
func (s *Store) CreateTask(_ context.Context, t service.NewTask) error {
	if len(t.Task.History) != 1 {
		return fmt.Errorf("memory: a new task must hold exactly its first message, got %d", len(t.Task.History))
	}
	if err := checkSize("message", t.Task.History[0]); err != nil {
		return err
	}
	if err := checkSize("request metadata", t.RequestMetadata); err != nil {
		return err
	}
	now := s.clock.Now()
	key := idemKey(t.Owner, t.Task.History[0].MessageID)

	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.idem[key]; ok && now.Before(r.expiresAt) {
		return &service.DuplicateError{TaskID: r.taskID}
	}
	if e, ok := s.tasks[t.Task.ID]; ok && now.Before(e.expiresAt) {
		return fmt.Errorf("memory: task id %s already exists", t.Task.ID)
	}
	task := t.Task
	task.History = slices.Clone(task.History)
	task.Artifacts = nil
	s.tasks[task.ID] = &entry{
		rec: service.TaskRecord{Task: task, Owner: t.Owner, Version: 1, CreatedAt: now, UpdatedAt: now,
			RequestMetadata: t.RequestMetadata},
		expiresAt: now.Add(s.taskTTL),
		artBytes:  map[string]int{},
		changed:   make(chan struct{}),
	}
	s.idem[key] = idemRecord{taskID: task.ID, expiresAt: now.Add(s.idemTTL)}
	if s.creates++; s.creates%sweepEvery == 0 {
		s.sweep(now)
	}
	return nil
}

// sweep drops expired tasks and idempotency records. Callers hold s.mu.
func (s *Store) sweep(now time.Time) {
	for id, e := range s.tasks {
		if !now.Before(e.expiresAt) {
			delete(s.tasks, id)
		}
	}
	for k, r := range s.idem {
		if !now.Before(r.expiresAt) {
			delete(s.idem, k)
		}
	}
}

// live returns the unexpired entry of a task. Callers hold s.mu.
func (s *Store) live(taskID string, now time.Time) *entry {
	e, ok := s.tasks[taskID]
	if !ok || !now.Before(e.expiresAt) {
		return nil
	}
	return e
}

// GetTask implements service.TaskStore.
func (s *Store) GetTask(_ context.Context, taskID string, opts service.GetOptions) (*service.TaskRecord, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.live(taskID, now)
	if e == nil {
		return nil, service.ErrNotFound
	}
	rec := view(&e.rec, opts.HistoryLength, opts.IncludeArtifacts)
	return &rec, nil
}

// view copies a record with the requested part of its history and
// artifacts. Messages and artifacts are shared; the store never modifies
// them in place.
func view(r *service.TaskRecord, historyLength int, artifacts bool) service.TaskRecord {
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

// UpdateTask implements service.TaskStore.
func (s *Store) UpdateTask(_ context.Context, u service.Update) (int64, error) {
	for _, m := range u.Messages {
		if err := checkSize("message", m); err != nil {
			return 0, err
		}
	}
	if u.Status != nil && u.Status.Message != nil {
		if err := checkSize("status message", u.Status.Message); err != nil {
			return 0, err
		}
	}
	if err := checkSize("request metadata", u.RequestMetadata); err != nil {
		return 0, err
	}
	now := s.clock.Now()

	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.live(u.TaskID, now)
	if e == nil {
		return 0, service.ErrNotFound
	}
	var key string
	if u.IdempotencyKey != "" {
		key = idemKey(u.Owner, u.IdempotencyKey)
		if r, ok := s.idem[key]; ok && now.Before(r.expiresAt) {
			return 0, &service.DuplicateError{TaskID: r.taskID}
		}
	}
	cur := &e.rec
	state := cur.Task.Status.State
	switch {
	case state.Terminal():
		return 0, &service.ConflictError{Reason: service.ConflictTerminal, State: state, Version: cur.Version}
	case u.IfVersion > 0 && u.IfVersion != cur.Version:
		return 0, &service.ConflictError{Reason: service.ConflictVersion, State: state, Version: cur.Version}
	case len(u.IfStates) > 0 && !slices.Contains(u.IfStates, state):
		return 0, &service.ConflictError{Reason: service.ConflictState, State: state, Version: cur.Version}
	}
	arts, sizes, err := applyArtifacts(cur.Task.Artifacts, e.artBytes, u.Artifacts, u.AppendArtifact)
	if err != nil {
		return 0, err
	}

	next := *cur
	next.Task.History = append(cur.Task.History, u.Messages...)
	if u.Status != nil {
		next.Task.Status = *u.Status
		if u.Status.Message != nil {
			next.Task.History = append(next.Task.History, *u.Status.Message)
		}
	}
	next.Task.Artifacts = arts
	if u.Checkpoint != nil {
		next.Checkpoint = u.Checkpoint
		if len(u.Checkpoint) == 0 {
			next.Checkpoint = nil
		}
	}
	if u.RequestMetadata != nil {
		next.RequestMetadata = u.RequestMetadata
	}
	next.Version++
	next.UpdatedAt = now
	e.rec = next
	e.artBytes = sizes
	e.expiresAt = now.Add(s.taskTTL)
	if key != "" {
		s.idem[key] = idemRecord{taskID: u.TaskID, expiresAt: now.Add(s.idemTTL)}
	}
	close(e.changed)
	e.changed = make(chan struct{})
	return next.Version, nil
}

// applyArtifacts returns the new artifact list and sizes without modifying
// the current ones.
func applyArtifacts(cur []a2a.Artifact, curSizes map[string]int, upd []a2a.Artifact, appendParts bool) ([]a2a.Artifact, map[string]int, error) {
	if len(upd) == 0 {
		return cur, curSizes, nil
	}
	arts := slices.Clone(cur)
	sizes := make(map[string]int, len(curSizes)+len(upd))
	for k, v := range curSizes {
		sizes[k] = v
	}
	for _, a := range upd {
		n, err := jsonSize(a)
		if err != nil {
			return nil, nil, err
		}
		i := slices.IndexFunc(arts, func(x a2a.Artifact) bool { return x.ArtifactID == a.ArtifactID })
		switch {
		case i < 0:
			arts = append(arts, a)
		case appendParts:
			merged := arts[i]
			merged.Parts = append(slices.Clone(merged.Parts), a.Parts...)
			arts[i] = merged
			n += sizes[a.ArtifactID]
		default:
			arts[i] = a
		}
		if n > service.MaxContentBytes {
			return nil, nil, &service.TooLargeError{What: fmt.Sprintf("artifact %s (%d bytes)", a.ArtifactID, n), Limit: service.MaxContentBytes}
		}
		sizes[a.ArtifactID] = n
	}
	return arts, sizes, nil
}

// ListTasks implements service.TaskStore. The cursor is the status
// timestamp and id of the last task of the previous page.
func (s *Store) ListTasks(_ context.Context, q service.ListQuery) (service.ListPage, error) {
	afterTS, afterID, hasCursor := strings.Cut(q.Cursor, "|")
	if q.Cursor != "" && !hasCursor {
		// The service binds page tokens to their owner but does not sign
		// them, so a client can forge this part: answer as a bad param.
		return service.ListPage{}, a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
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
	page := service.ListPage{Total: len(match)}
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

// WaitForChange implements service.ChangeWaiter.
func (s *Store) WaitForChange(ctx context.Context, taskID string, after int64) error {
	s.mu.Lock()
	e := s.live(taskID, s.clock.Now())
	if e == nil || e.rec.Version > after {
		s.mu.Unlock()
		return nil
	}
	ch := e.changed
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func jsonSize(v any) (int, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("memory: encode: %w", err)
	}
	return len(b), nil
}

func checkSize(what string, v any) error {
	if v == nil {
		return nil
	}
	if md, ok := v.(a2a.Metadata); ok && md == nil {
		return nil
	}
	n, err := jsonSize(v)
	if err != nil {
		return err
	}
	if n > service.MaxContentBytes {
		return &service.TooLargeError{What: fmt.Sprintf("%s (%d bytes)", what, n), Limit: service.MaxContentBytes}
	}
	return nil
}
