// Package notify turns committed task changes into push notifications: one
// Job per (change, webhook config), resolved into a signed push.Notification
// with the body the config's protocol version asks for, delivered by
// push.Deliverer under push.RetryPolicy, each attempt recorded in the
// task's delivery log (store.DeliveryLog).
//
// The same code serves both pipelines:
//
//	Lambda: table stream → push function (Jobs) → SQS → deliver function (Sender.Send)
//	local:  memory store OnChange → Local (Jobs, Resolve) → memqueue → Recorder
package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// MaxJobBytes bounds the encoded Job that carries its task snapshot: a
// larger job leaves the snapshot out (see Job.Task), so that it always fits
// an SQS message (256 KiB) with room to spare.
const MaxJobBytes = 200 << 10

// Job is one task change to tell one webhook about: what the push function
// sends to the delivery queue. It holds no secret: the deliverer reads the
// config (URL, token, credentials) when it delivers.
type Job struct {
	TaskID   string `json:"taskId"`
	ConfigID string `json:"configId"`
	// Version is the task version of the change; with TaskID it is the
	// event id that receivers deduplicate on.
	Version int64 `json:"version"`
	// Task is the task at Version without history and artifacts. It is nil
	// when it did not fit a queue message: the deliverer then reads the
	// task as it is at delivery time.
	Task *a2a.Task `json:"task,omitempty"`
	// ArtifactIDs are the artifacts the change completed; the deliverer
	// reads them into the notification (all of them once the task is
	// terminal).
	ArtifactIDs []string `json:"artifactIds,omitempty"`
}

// EventID returns the event id of the job's change.
func (j Job) EventID() string { return push.EventID(j.TaskID, j.Version) }

// Jobs returns one job per push config of the change, nil when the task
// has none or the change is not one webhooks are told about.
func Jobs(c store.TaskChange) []Job {
	if !c.Notable() || len(c.PushConfigIDs) == 0 {
		return nil
	}
	task := c.Task
	task.History, task.Artifacts = nil, nil
	task.Metadata = a2a.WithSession(task.Metadata, c.SessionID)
	jobs := make([]Job, len(c.PushConfigIDs))
	for i, id := range c.PushConfigIDs {
		jobs[i] = Job{TaskID: c.Task.ID, ConfigID: id, Version: c.Version, Task: &task, ArtifactIDs: c.ArtifactIDs}
	}
	return jobs
}

// Encode returns the job as a queue message body, without its task
// snapshot when that would exceed MaxJobBytes.
func (j Job) Encode() ([]byte, error) {
	b, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("notify: encode job %s: %w", j.EventID(), err)
	}
	if len(b) <= MaxJobBytes {
		return b, nil
	}
	j.Task = nil
	return json.Marshal(j)
}

// DecodeJob reads a queue message body.
func DecodeJob(body []byte) (Job, error) {
	var j Job
	if err := json.Unmarshal(body, &j); err != nil {
		return j, fmt.Errorf("notify: decode job: %w", err)
	}
	if j.TaskID == "" || j.ConfigID == "" || j.Version <= 0 {
		return j, fmt.Errorf("notify: job without a task id, config id or version")
	}
	if j.Task != nil && j.Task.ID != j.TaskID {
		return j, fmt.Errorf("notify: job for task %s carries task %s", j.TaskID, j.Task.ID)
	}
	return j, nil
}

// DeliveryJob reads the job a delivery log entry keeps (to redrive it):
// it must be the job of d's own event and config.
func DeliveryJob(d store.Delivery) (Job, error) {
	j, err := DecodeJob(d.Job)
	if err != nil {
		return j, fmt.Errorf("the job of delivery %s to config %s: %w", d.EventID(), d.ConfigID, err)
	}
	if j.TaskID != d.TaskID || j.ConfigID != d.ConfigID || j.Version != d.Version {
		return j, fmt.Errorf("the job of delivery %s to config %s is %s to config %s", d.EventID(), d.ConfigID, j.EventID(), j.ConfigID)
	}
	return j, nil
}

// Store is what resolving jobs and recording outcomes needs of the task
// store; store.Store implements it.
type Store interface {
	GetTask(ctx context.Context, taskID string, opts store.GetOptions) (*store.TaskRecord, error)
	GetPushConfig(ctx context.Context, taskID, configID string) (*store.PushConfig, error)
	LogDelivery(ctx context.Context, taskID string, a store.DeliveryAttempt) error
}

// ErrGone is returned by Resolve when the job's task or config no longer
// exists: there is nobody to notify, and nothing to retry.
var ErrGone = errors.New("the task or its push config is gone")

// Body renders a notification body of one protocol version from the task
// snapshot: its content type and bytes.
type Body func(task *a2a.Task) (contentType string, body []byte, err error)

// TaskBody is the A2A 0.3 body: the Task object (kind "task").
func TaskBody(task *a2a.Task) (string, []byte, error) {
	b, err := task.AppendJSON(make([]byte, 0, 512))
	return push.ContentTypeJSON, b, err
}

// Resolver turns jobs into notifications.
type Resolver struct {
	store Store
	// bodies renders the body per protocol version.
	bodies map[a2a.Version]Body
	// presign, when set, names the task's kept files by URL.
	presign Presign
}

// Presign returns t (not changed) with the files the host keeps named by
// URLs that fetch them (files.Files.PresignTask): notifications carry
// URIs, never a file's bytes.
type Presign func(ctx context.Context, t *a2a.Task) *a2a.Task

// WithPresign makes the notifications show the task's kept files through
// p, and returns r.
func (r *Resolver) WithPresign(p Presign) *Resolver {
	r.presign = p
	return r
}

// NewResolver returns a resolver that renders 0.3 configs with TaskBody and
// those of the versions in bodies with their Body.
func NewResolver(store Store, bodies map[a2a.Version]Body) *Resolver {
	m := map[a2a.Version]Body{a2a.V03: TaskBody}
	for v, b := range bodies {
		m[v] = b
	}
	return &Resolver{store: store, bodies: m}
}

// Resolve reads the job's config and completed artifacts and renders the
// notification. It returns ErrGone (wrapped) when the task or the config is
// gone.
func (r *Resolver) Resolve(ctx context.Context, j Job) (push.Notification, error) {
	cfg, err := r.store.GetPushConfig(ctx, j.TaskID, j.ConfigID)
	if errors.Is(err, store.ErrNotFound) {
		return push.Notification{}, fmt.Errorf("notify: config %s of task %s: %w", j.ConfigID, j.TaskID, ErrGone)
	}
	if err != nil {
		return push.Notification{}, fmt.Errorf("notify: read config %s of task %s: %w", j.ConfigID, j.TaskID, err)
	}
	task, err := r.snapshot(ctx, j)
	if err != nil {
		return push.Notification{}, err
	}
	if r.presign != nil {
		task = r.presign(ctx, task)
	}
	render, ok := r.bodies[cfg.ProtocolVersion]
	if !ok {
		render = TaskBody
	}
	ct, body, err := render(task)
	if err != nil {
		return push.Notification{}, fmt.Errorf("notify: render %s for task %s: %w", j.EventID(), j.TaskID, err)
	}
	return push.Notification{Config: cfg.Config, TaskID: j.TaskID, TaskVersion: j.Version, ContentType: ct, Body: body}, nil
}

// snapshot is the job's task as a notification shows it: the job's own
// snapshot (or, when the job had to leave it out, the task read now) with
// the artifacts the change completed, or, once the task is terminal, all
// its artifacts, so that the last notification holds the whole result.
func (r *Resolver) snapshot(ctx context.Context, j Job) (*a2a.Task, error) {
	terminal := j.Task != nil && j.Task.Status.State.Terminal()
	if j.Task != nil && len(j.ArtifactIDs) == 0 && !terminal {
		t := *j.Task
		return &t, nil
	}
	rec, err := r.store.GetTask(ctx, j.TaskID, store.GetOptions{IncludeArtifacts: true})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("notify: task %s: %w", j.TaskID, ErrGone)
	}
	if err != nil {
		return nil, fmt.Errorf("notify: read task %s: %w", j.TaskID, err)
	}
	t := rec.Task
	if j.Task != nil {
		t = *j.Task
	}
	t.History, t.Artifacts = nil, nil
	all := t.Status.State.Terminal()
	for _, a := range rec.Task.Artifacts {
		if all || slices.Contains(j.ArtifactIDs, a.ArtifactID) {
			t.Artifacts = append(t.Artifacts, a)
		}
	}
	return &t, nil
}

// Attempt is the delivery log's attempt of a status; job, when the status
// is a failure for good, is the job to redrive it with.
func Attempt(s push.DeliveryStatus, job []byte) (store.DeliveryAttempt, error) {
	i := strings.LastIndexByte(s.EventID, ':')
	version, err := strconv.ParseInt(s.EventID[i+1:], 10, 64)
	if i < 0 || err != nil {
		return store.DeliveryAttempt{}, fmt.Errorf("notify: %q is not an event id", s.EventID)
	}
	a := store.DeliveryAttempt{
		ConfigID: s.ConfigID, Version: version, Attempt: s.Attempts, At: s.LastAttemptAt, StatusCode: s.LastStatusCode,
		Error: s.LastError, State: string(s.State), NextAttemptAt: s.NextAttemptAt,
	}
	if s.State == push.StateFailed {
		a.DeadLettered, a.Job = true, job
	}
	return a, nil
}
