package memory

import (
	"context"
	"slices"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// UpdateTask implements store.TaskStore.
func (s *Store) UpdateTask(_ context.Context, u store.Update) (int64, error) {
	added, err := checkUpdateSizes(&u)
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	s.mu.Lock()
	e := s.live(u.TaskID, now)
	if e == nil {
		s.mu.Unlock()
		return 0, store.ErrNotFound
	}
	if err := s.duplicate(&u, now); err != nil {
		s.mu.Unlock()
		return 0, err
	}
	v, change, err := s.apply(e, &u, added, now)
	s.mu.Unlock()
	s.notify(change)
	return v, err
}

// updateSizes are the sizes of what an update adds: its messages (the
// status message with them), its interrupt's message and its request
// metadata.
type updateSizes struct{ messages, pending, requestMetadata int }

// checkUpdateSizes refuses content of u that no store keeps
// (store.CheckContent) and returns the sizes of what u adds.
func checkUpdateSizes(u *store.Update) (updateSizes, error) {
	var sz updateSizes
	for i := range u.Messages {
		n, err := messageSize("message", &u.Messages[i])
		if err != nil {
			return sz, err
		}
		sz.messages += n
	}
	if u.Status != nil && u.Status.Message != nil {
		n, err := messageSize("status message", u.Status.Message)
		if err != nil {
			return sz, err
		}
		sz.messages += n
	}
	if p := u.Pending; p != nil {
		// Kept whole, as the DynamoDB store keeps it.
		n := pendingSize(p)
		if err := store.CheckContent("interrupt", n, p); err != nil {
			return sz, err
		}
		sz.pending = n
	}
	n, err := metadataSize("request metadata", u.RequestMetadata)
	sz.requestMetadata = n
	return sz, err
}

// duplicate returns a *DuplicateError when u's idempotency record exists.
// Callers hold s.mu.
func (s *Store) duplicate(u *store.Update, now time.Time) error {
	if u.IdempotencyKey == "" {
		return nil
	}
	if r, ok := s.idem[idemKey(u.Owner, u.IdempotencyKey)]; ok && now.Before(r.expiresAt) {
		// A continuation's record: the window is its life, so no time.
		return &store.DuplicateError{TaskID: r.taskID, Fingerprint: r.fingerprint}
	}
	if e := s.idemTask(u.Owner, u.IdempotencyKey, now); e != nil {
		return &store.DuplicateError{TaskID: e.rec.Task.ID, Fingerprint: e.rec.Fingerprint}
	}
	return nil
}

// idemTask returns the task that is the idempotency record of owner's
// message messageID, the task it created under its own id
// (store.TaskIDFor), while the window lasts. Callers hold s.mu.
func (s *Store) idemTask(owner, messageID string, now time.Time) *entry {
	e := s.live(store.TaskIDFor(owner, messageID), now)
	if e == nil || e.rec.Owner != owner || len(e.rec.Task.History) == 0 || e.rec.Task.History[0].MessageID != messageID || !now.Before(e.rec.CreatedAt.Add(s.idemTTL)) {
		return nil
	}
	return e
}

// apply checks u's conditions against e and applies it, returning the new
// version and the change for OnChange; added is what u adds
// (checkUpdateSizes). Callers hold s.mu.
func (s *Store) apply(e *entry, u *store.Update, added updateSizes, now time.Time) (int64, *store.TaskChange, error) {
	cur := &e.rec
	state := cur.Task.Status.State
	switch {
	case state.Terminal():
		return 0, nil, &store.ConflictError{Reason: store.ConflictTerminal, State: state, Version: cur.Version}
	case u.IfVersion > 0 && u.IfVersion != cur.Version:
		return 0, nil, &store.ConflictError{Reason: store.ConflictVersion, State: state, Version: cur.Version}
	case len(u.IfStates) > 0 && !slices.Contains(u.IfStates, state):
		return 0, nil, &store.ConflictError{Reason: store.ConflictState, State: state, Version: cur.Version}
	}
	if u.Inbox {
		// The message joins the history and the inbox and keeps the task
		// alive; the task's version stays, so a step's writes never
		// conflict with it.
		cur.Task.History = append(cur.Task.History, u.Messages...)
		e.expiresAt = now.Add(s.taskTTL)
		cur.Inbox += len(u.Messages)
		e.inbox = append(e.inbox, u.Messages...)
		s.recordIdempotency(e, u, now)
		s.grow(e, added.messages, now)
		return cur.Version, nil, nil
	}
	arts, sizes, artGrowth, err := applyArtifacts(cur.Task.Artifacts, e.artBytes, u.Artifacts, u.AppendArtifact)
	if err != nil {
		return 0, nil, err
	}
	growth := added.messages + artGrowth

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
		growth += added.requestMetadata - cur.RequestMetadata.ApproxSize()
	}
	if u.Pending != nil {
		next.Pending = u.Pending
		growth += added.pending - pendingSize(cur.Pending)
	}
	if u.ExecutionARN != "" {
		next.ExecutionARN = u.ExecutionARN
	}
	switch {
	case u.Lease.Held():
		next.Lease = u.Lease.Stored()
	case u.ClearLease:
		next.Lease = store.Lease{}
	}
	v := s.commit(e, next, now)
	e.artBytes = sizes
	s.recordIdempotency(e, u, now)
	s.grow(e, growth, now)
	return v, s.change(e, store.StatusNotable(state, u.Status), u.CompletedArtifacts()), nil
}

// recordIdempotency keeps u's idempotency key, if any, with e. Callers hold
// s.mu.
func (s *Store) recordIdempotency(e *entry, u *store.Update, now time.Time) {
	if u.IdempotencyKey != "" {
		k := idemKey(u.Owner, u.IdempotencyKey)
		s.idem[k] = idemRecord{taskID: u.TaskID, fingerprint: u.Fingerprint, expiresAt: now.Add(s.idemTTL)}
		e.idemKeys = append(e.idemKeys, k)
	}
}

// commit stores next as the entry's record with a new version, which it
// returns, and wakes requests waiting for the task to settle. Callers hold
// s.mu.
func (s *Store) commit(e *entry, next store.TaskRecord, now time.Time) int64 {
	next.Version++
	next.UpdatedAt = now
	if st := next.Task.Status.State; st.Terminal() || st.Interrupted() {
		next.Lease = store.Lease{} // nobody runs it: nothing to take over
	}
	if next.Task.Status.State.Terminal() && !e.rec.Task.Status.State.Terminal() {
		s.finished = append(s.finished, next.Task.ID)
	}
	e.rec = next
	e.expiresAt = now.Add(s.taskTTL)
	if e.settled != nil && next.Task.Status.State.Settled() {
		close(e.settled)
		e.settled = nil
	}
	return next.Version
}

// applyArtifacts returns the new artifact list and their sizes (sizes[i]
// is the estimated JSON size of arts[i]) without modifying the current
// ones, and how much the sizes grew.
func applyArtifacts(cur []a2a.Artifact, curSizes []int, upd []a2a.Artifact, appendParts bool) (arts []a2a.Artifact, sizes []int, growth int, err error) {
	if len(upd) == 0 {
		return cur, curSizes, 0, nil
	}
	arts = slices.Clone(cur)
	sizes = slices.Clone(curSizes)
	for _, a := range upd {
		n := a.ApproxSize()
		i := slices.IndexFunc(arts, func(x a2a.Artifact) bool { return x.ArtifactID == a.ArtifactID })
		switch {
		case i < 0:
			arts = append(arts, a)
			sizes = append(sizes, 0)
			i = len(arts) - 1
		case appendParts:
			merged := arts[i]
			merged.Parts = append(slices.Clone(merged.Parts), a.Parts...)
			arts[i] = merged
			n += sizes[i]
		default:
			arts[i] = a
		}
		if store.ContentMayExceed(n) { // named and measured only then: no allocation otherwise
			if _, err := store.EncodeContent("artifact "+a.ArtifactID, &arts[i]); err != nil {
				return nil, nil, 0, err
			}
		}
		growth += n - sizes[i]
		sizes[i] = n
	}
	return arts, sizes, growth, nil
}

// messageSize refuses a message that no store keeps and returns its
// estimated size.
func messageSize(what string, m *a2a.Message) (int, error) {
	n := m.ApproxSize()
	return n, store.CheckContent(what, n, m)
}

// metadataSize refuses metadata that no store keeps and returns its
// estimated size.
func metadataSize(what string, md a2a.Metadata) (int, error) {
	if md == nil {
		return 0, nil
	}
	n := md.ApproxSize()
	return n, store.CheckContent(what, n, md)
}

// pendingSize is the estimated size of an interrupt: its message and
// details.
func pendingSize(p *store.PendingInterrupt) int {
	if p == nil {
		return 0
	}
	n := a2a.Metadata(p.Details).ApproxSize()
	if p.Message != nil {
		n += p.Message.ApproxSize()
	}
	return n
}
