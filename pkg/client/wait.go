package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// Polling defaults of Wait.
const (
	DefaultMinInterval = 250 * time.Millisecond
	DefaultMaxInterval = 2 * time.Second
	DefaultMaxErrors   = 5
)

// Update is what changed in a task between two polls.
type Update struct {
	// Task is the task as just read.
	Task *a2a.Task
	// First is true for the first update Wait reports.
	First bool
	// StateChanged is true when the state differs from the previous poll
	// (and on the first update).
	StateChanged bool
	// StatusMessage is the status message when it is new (another
	// messageId, or new text) since the previous poll.
	StatusMessage *a2a.Message
	// Artifacts lists the artifacts that appeared or changed.
	Artifacts []ArtifactChange
}

// Changed reports whether the update carries any change.
func (u Update) Changed() bool {
	return u.First || u.StateChanged || u.StatusMessage != nil || len(u.Artifacts) > 0
}

// ArtifactChange is one artifact that appeared or changed.
type ArtifactChange struct {
	// Artifact is the artifact as it is now.
	Artifact a2a.Artifact
	// New is true when the artifact did not exist at the previous poll.
	New bool
	// Replaced is true when parts seen before changed other than by
	// growing: render Artifact again rather than appending NewParts.
	Replaced bool
	// Grown is true when the last text part seen before grew: the first
	// entry of NewParts is a text part holding only the added text.
	Grown bool
	// NewParts are the parts added since the previous poll (every part
	// when New or Replaced).
	NewParts []a2a.Part
}

// Changes compares two reads of a task; prev may be nil (everything is new).
func Changes(prev, cur *a2a.Task) Update {
	u := Update{Task: cur}
	if prev == nil {
		u.First, u.StateChanged = true, true
		u.StatusMessage = cur.Status.Message
		for _, a := range cur.Artifacts {
			u.Artifacts = append(u.Artifacts, ArtifactChange{Artifact: a, New: true, NewParts: a.Parts})
		}
		return u
	}
	u.StateChanged = prev.Status.State != cur.Status.State
	if m := cur.Status.Message; m != nil {
		pm := prev.Status.Message
		if pm == nil || pm.MessageID != m.MessageID || pm.Text() != m.Text() {
			u.StatusMessage = m
		}
	}
	before := make(map[string]a2a.Artifact, len(prev.Artifacts))
	for _, a := range prev.Artifacts {
		before[a.ArtifactID] = a
	}
	for _, a := range cur.Artifacts {
		old, ok := before[a.ArtifactID]
		if !ok {
			u.Artifacts = append(u.Artifacts, ArtifactChange{Artifact: a, New: true, NewParts: a.Parts})
			continue
		}
		if ch, changed := growth(old.Parts, a.Parts); changed {
			ch.Artifact = a
			u.Artifacts = append(u.Artifacts, ch)
		}
	}
	return u
}

// growth compares an artifact's parts before and after.
func growth(old, cur []a2a.Part) (ArtifactChange, bool) {
	n := 0
	for n < len(old) && n < len(cur) && samePart(old[n], cur[n]) {
		n++
	}
	switch {
	case n == len(old) && n == len(cur):
		return ArtifactChange{}, false
	case n == len(old):
		return ArtifactChange{NewParts: cur[n:]}, true
	case n == len(old)-1 && n < len(cur) && old[n].Kind == a2a.PartKindText && cur[n].Kind == a2a.PartKindText &&
		strings.HasPrefix(cur[n].Text, old[n].Text):
		grown := a2a.TextPart(cur[n].Text[len(old[n].Text):])
		return ArtifactChange{Grown: true, NewParts: append([]a2a.Part{grown}, cur[n+1:]...)}, true
	}
	return ArtifactChange{Replaced: true, NewParts: cur}, true
}

func samePart(a, b a2a.Part) bool {
	if a.Kind != b.Kind || a.Text != b.Text || !bytes.Equal(a.Data, b.Data) {
		return false
	}
	if (a.File == nil) != (b.File == nil) || (a.File != nil && *a.File != *b.File) {
		return false
	}
	am, _ := json.Marshal(a.Metadata)
	bm, _ := json.Marshal(b.Metadata)
	return bytes.Equal(am, bm)
}

// WaitOptions tune Wait.
type WaitOptions struct {
	// MinInterval is the first delay between polls, used again after every
	// change; 0 means DefaultMinInterval.
	MinInterval time.Duration
	// MaxInterval caps the delay, which doubles while nothing changes; 0
	// means DefaultMaxInterval.
	MaxInterval time.Duration
	// MaxErrors is how many consecutive transient failures (network errors,
	// HTTP 429 and 5xx) Wait tolerates; 0 means DefaultMaxErrors.
	MaxErrors int
	// HistoryLength is sent with every tasks/get; nil leaves the server's
	// default.
	HistoryLength *int
	// Initial is the task as last read (for example the result of the
	// send): it is reported first and polling starts after it.
	Initial *a2a.Task
	// Since is the task as the caller already showed it: the first update
	// reports only what changed since (nil reports everything).
	Since *a2a.Task
	// OnUpdate is called with every change, in order, from Wait's
	// goroutine.
	OnUpdate func(Update)
}

// Wait polls the task with backoff until it is terminal or interrupted
// (input-required, auth-required) and returns it, reporting each change to
// OnUpdate. When ctx ends first it returns the task as last read with
// ctx's error.
func (c *Client) Wait(ctx context.Context, taskID string, o WaitOptions) (*a2a.Task, error) {
	o.MinInterval = positive.Or(o.MinInterval, DefaultMinInterval)
	if o.MaxInterval < o.MinInterval {
		o.MaxInterval = max(DefaultMaxInterval, o.MinInterval)
	}
	o.MaxErrors = positive.Or(o.MaxErrors, DefaultMaxErrors)
	report := func(u Update) {
		if o.OnUpdate != nil {
			o.OnUpdate(u)
		}
	}
	firstUpdate := func(t *a2a.Task) Update {
		u := Changes(o.Since, t)
		u.First = true
		return u
	}
	last := o.Initial
	if last != nil {
		report(firstUpdate(last))
		if last.Status.State.Settled() {
			return last, nil
		}
	}
	interval := o.MinInterval
	failures := 0
	for first := last == nil; ; first = false {
		if !first {
			if err := clock.Sleep(ctx, clock.System{}, interval); err != nil {
				return last, err
			}
		}
		t, err := c.GetTask(ctx, a2a.TaskQueryParams{ID: taskID, HistoryLength: o.HistoryLength})
		if err != nil {
			if ctx.Err() != nil {
				return last, ctx.Err()
			}
			failures++
			if !Transient(err) || failures >= o.MaxErrors {
				return last, fmt.Errorf("wait for task %s: %w", taskID, err)
			}
			interval = min(interval*2, o.MaxInterval)
			continue
		}
		failures = 0
		var u Update
		if last == nil {
			u = firstUpdate(t)
		} else {
			u = Changes(last, t)
		}
		last = t
		if u.Changed() {
			report(u)
			interval = o.MinInterval
		} else {
			interval = min(interval*2, o.MaxInterval)
		}
		if t.Status.State.Settled() {
			return t, nil
		}
	}
}

// Transient reports whether err is worth retrying: a network failure, or an
// HTTP 429 / 5xx answer without a protocol error.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code == 0 && (e.HTTPStatus == http.StatusTooManyRequests || e.HTTPStatus >= 500)
	}
	return true
}
