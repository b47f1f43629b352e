// Package service holds the transport-neutral A2A operations (send, get,
// list, cancel, push configs, interrupts, contexts, deliveries, uploads),
// behind the ports they need: its Store, engine.Runner (and InlineRunner),
// Files, clock.Clock and the agent's description. The steps of the tasks
// they start are pkg/internal/engine's. It imports neither AWS nor net/http.
//
// Owner scoping lives here: every task belongs to the caller that created it,
// and any other caller is told the task does not exist.
package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

const (
	// A blocking send that waits for work done elsewhere reads its task
	// at these intervals, doubling: three reads in the first second, then
	// one a second.
	defaultPollMin    = 100 * time.Millisecond
	defaultPollMax    = time.Second
	maxUpdateAttempts = 5
)

// Config holds the service's behaviour settings. A zero BlockingTimeout,
// LeaseDuration, IdempotencyWindow or MaxParts takes the configuration's
// default (config.DefaultBlockingTimeout and so on), which the
// configuration never passes as zero.
type Config struct {
	// BlockingDefault applies when message/send does not say
	// configuration.blocking (A2A_BLOCKING_DEFAULT).
	BlockingDefault bool
	// BlockingTimeout bounds how long a blocking send waits for the task to
	// settle before returning it as it is (A2A_BLOCKING_TIMEOUT_SECONDS),
	// counted from the send's start: what a runner spent of it running
	// steps in the request is not waited again.
	BlockingTimeout time.Duration
	// PushNotifications enables push notification configs.
	PushNotifications bool
	// LeaseDuration is the time a runner has to start a new task or a
	// reply before a sweep takes the task over (A2A_TASK_LEASE_SECONDS;
	// see store.Lease).
	LeaseDuration time.Duration
	// IdempotencyWindow is how long a message id stays the message's
	// (A2A_IDEMPOTENCY_WINDOW_SECONDS): within it, a send of the same id
	// and the same message is a retry, answered with the first send's task
	// without starting anything, and a send of the same id with another
	// message is refused; past it, the id is free again. Zero means
	// config.DefaultIdempotencyWindow; NoIdempotency turns the rule off.
	IdempotencyWindow time.Duration
	// NoIdempotency makes every send a new message, whatever its id
	// (A2A_IDEMPOTENCY_WINDOW_SECONDS=0): what a client that reuses one
	// message id for many messages needs (some conformance kits do).
	NoIdempotency bool
	// MaxParts bounds the parts of a message (A2A_MAX_PARTS).
	MaxParts int
}

// Options carry the service's collaborators that have defaults.
type Options struct {
	Clock  clock.Clock
	Logger *slog.Logger
	// CheckPushConfig vets webhook registrations (see PushConfigChecker);
	// nil accepts any URL, leaving the dial-time guard of the delivery as
	// the only check.
	CheckPushConfig PushConfigChecker
	// Files keeps the parts too large for a task item; nil keeps none.
	Files Files
	// Inline runs a blocking send's steps in the request from the first
	// step of its new task, which that step stores; nil leaves every step
	// to the runner, after the send stored the task.
	Inline InlineRunner
}

// Service implements the A2A operations.
type Service struct {
	store     Store
	runner    engine.Runner
	inline    InlineRunner
	info      agent.Info
	cfg       Config
	clock     clock.Clock
	log       *slog.Logger
	checkPush PushConfigChecker
	redriver  DeliveryRedriver
	files     Files
	// sessions is the metadata answers show for tasks with none of their
	// own (see sessionMetadata).
	sessions sessionMetadata
}

// NewID returns a random UUID string, the default id generator.
func NewID() string { return uuid.NewString() }

// New returns a service over store and runner for the agent described by info.
func New(store Store, runner engine.Runner, info agent.Info, cfg Config, opts Options) *Service {
	s := &Service{store: store, runner: runner, inline: opts.Inline, info: info, cfg: cfg, clock: clock.Or(opts.Clock), log: opts.Logger, checkPush: opts.CheckPushConfig, files: opts.Files}
	s.cfg.BlockingTimeout = positive.Or(s.cfg.BlockingTimeout, config.DefaultBlockingTimeout)
	s.cfg.MaxParts = positive.Or(s.cfg.MaxParts, config.DefaultMaxParts)
	s.cfg.LeaseDuration = positive.Or(s.cfg.LeaseDuration, config.DefaultLeaseDuration)
	s.cfg.IdempotencyWindow = positive.Or(s.cfg.IdempotencyWindow, config.DefaultIdempotencyWindow)
	s.log = cmp.Or(s.log, slog.New(slog.DiscardHandler))
	return s
}

// GetTask implements tasks/get.
func (s *Service) GetTask(ctx context.Context, owner string, p a2a.TaskQueryParams) (*a2a.Task, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	opts := store.GetOptions{HistoryLength: -1, IncludeArtifacts: true}
	if p.HistoryLength != nil {
		opts.HistoryLength = *p.HistoryLength
	}
	rec, err := s.get(ctx, owner, p.ID, opts)
	if err != nil {
		return nil, err
	}
	return s.show(ctx, rec, &s.sessions), nil
}

// CancelTask implements tasks/cancel. Canceling a canceled task returns it
// unchanged; canceling another terminal task is refused with -32002. The
// first terminal state always wins.
func (s *Service) CancelTask(ctx context.Context, owner string, p a2a.TaskIDParams) (*a2a.Task, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		rec, err := s.get(ctx, owner, p.ID, store.GetOptions{})
		if err != nil {
			return nil, err
		}
		switch st := rec.Task.Status.State; {
		case st == a2a.TaskStateCanceled:
			return s.read(ctx, owner, p.ID, store.AllHistory)
		case st.Terminal():
			return nil, a2a.Errorf(a2a.CodeTaskNotCancelable, "task %s is %s and cannot be canceled", p.ID, st)
		}
		_, err = s.store.UpdateTask(ctx, store.Update{
			TaskID:    p.ID,
			IfVersion: rec.Version,
			Status:    &a2a.TaskStatus{State: a2a.TaskStateCanceled, Timestamp: s.now()},
		})
		var ce *store.ConflictError
		if errors.As(err, &ce) && attempt < maxUpdateAttempts {
			continue // re-read: another writer moved first
		}
		if err != nil {
			return nil, s.storeError(err, p.ID, "params")
		}
		metrics.TaskState(ctx, s.info.Name, a2a.TaskStateCanceled)
		if err := s.runner.Cancel(ctx, engine.CancelRequest{TaskID: p.ID, TaskToken: s.waitingToken(ctx, &rec.Task), ExecutionARN: rec.ExecutionARN}); err != nil {
			s.log.WarnContext(ctx, "runner could not stop canceled task", "taskId", p.ID, "error", err)
		}
		return s.read(ctx, owner, p.ID, store.AllHistory)
	}
}

// waitingToken is the callback token of the interrupt an interrupted task
// waits on, or "".
func (s *Service) waitingToken(ctx context.Context, t *a2a.Task) string {
	if !t.Status.State.Interrupted() {
		return ""
	}
	im, _ := a2a.InterruptOf(t.Status.Message)
	id := im.RequestID
	if id == "" {
		return ""
	}
	b, err := s.store.GetInterrupt(ctx, id)
	if err != nil {
		return ""
	}
	return b.TaskToken
}

// ListTasks implements tasks/list: the caller's tasks, newest first.
func (s *Service) ListTasks(ctx context.Context, owner string, p a2a.ListTasksParams) (*a2a.ListTasksResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	size, cursor, err := pageOf(owner, p.PageSize, p.PageToken)
	if err != nil {
		return nil, err
	}
	q := store.ListQuery{Owner: owner, ContextID: p.ContextID, State: p.Status, PageSize: size, Cursor: cursor, IncludeArtifacts: p.IncludeArtifacts}
	if p.HistoryLength != nil {
		q.HistoryLength = *p.HistoryLength
	}
	if p.StatusTimestampAfter != "" {
		t, _ := a2a.ParseTime(p.StatusTimestampAfter) // validated
		q.StatusAfter = a2a.FormatTime(t)
	}
	page, err := s.store.ListTasks(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	res := &a2a.ListTasksResult{Tasks: make([]a2a.Task, 0, len(page.Tasks)), PageSize: q.PageSize, TotalSize: page.Total}
	for i := range page.Tasks {
		res.Tasks = append(res.Tasks, *s.presign(ctx, withRuntimeMetadata(&page.Tasks[i], &s.sessions)))
	}
	res.NextPageToken = nextPageToken(owner, page.NextCursor)
	return res, nil
}

// checkOutputModes refuses a request whose accepted output modes share
// nothing with the agent's.
func (s *Service) checkOutputModes(accepted []string) error {
	if len(accepted) == 0 {
		return nil
	}
	produced := s.info.OutputModes
	if len(produced) == 0 {
		produced = []string{"text/plain"}
	}
	for _, a := range accepted {
		if a == "*/*" || slices.ContainsFunc(produced, func(p string) bool { return mediaTypeMatches(a, p) }) {
			return nil
		}
	}
	return a2a.Errorf(a2a.CodeContentTypeNotSupported,
		"none of the accepted output modes [%s] is produced by this agent, which produces [%s]",
		strings.Join(accepted, ", "), strings.Join(produced, ", "))
}

// mediaTypeMatches compares media types, ignoring parameters and case, with
// "type/*" wildcards on either side.
func mediaTypeMatches(a, b string) bool {
	norm := func(s string) string {
		s, _, _ = strings.Cut(s, ";")
		return strings.ToLower(strings.TrimSpace(s))
	}
	a, b = norm(a), norm(b)
	if a == b {
		return true
	}
	at, as, _ := strings.Cut(a, "/")
	bt, bs, _ := strings.Cut(b, "/")
	return at == bt && (as == "*" || bs == "*")
}

// get reads a task owned by owner; any other caller gets TaskNotFound.
func (s *Service) get(ctx context.Context, owner, taskID string, opts store.GetOptions) (*store.TaskRecord, error) {
	rec, err := s.store.GetTask(ctx, taskID, opts)
	if err != nil {
		return nil, s.storeError(err, taskID, "params")
	}
	if rec.Owner != owner {
		return nil, a2a.TaskNotFound(taskID)
	}
	return rec, nil
}

func (s *Service) read(ctx context.Context, owner, taskID string, opts store.GetOptions) (*a2a.Task, error) {
	rec, err := s.get(ctx, owner, taskID, opts)
	if err != nil {
		return nil, err
	}
	return s.wire(ctx, rec), nil
}

// wire is rec as a request answers with it.
func (s *Service) wire(ctx context.Context, rec *store.TaskRecord) *a2a.Task {
	return s.show(ctx, rec, nil)
}

// show is rec as an answer shows it, with sessions' metadata when it has
// none of its own (see withRuntimeMetadata): a read's answer shares it.
func (s *Service) show(ctx context.Context, rec *store.TaskRecord, sessions *sessionMetadata) *a2a.Task {
	logfields.AddTask(ctx, rec.Task.ID, rec.Task.ContextID)
	return s.presign(ctx, withRuntimeMetadata(rec, sessions))
}

// presign is t with its kept files named by presigned URLs.
func (s *Service) presign(ctx context.Context, t *a2a.Task) *a2a.Task {
	if s.files == nil {
		return t
	}
	return s.files.PresignTask(ctx, t)
}

// CreateUpload implements files/createUpload: a presigned URL to upload a
// file before the message that names it.
func (s *Service) CreateUpload(ctx context.Context, owner string, p a2a.FileUploadParams) (*a2a.FileUploadResult, error) {
	if s.files == nil {
		return nil, a2a.Errorf(a2a.CodeUnsupportedOperation, "this server keeps no files (no file store is configured): send files inline, within the request body limit")
	}
	return s.files.CreateUpload(ctx, owner, p)
}

// storeError maps a store error to the protocol: not found, too large, or
// an internal error (wrapped, for the edge to log).
func (s *Service) storeError(err error, taskID, field string) error {
	var tl *store.TooLargeError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return a2a.TaskNotFound(taskID)
	case errors.As(err, &tl):
		return a2a.InvalidParams(field, "%s", tl.Error())
	case errors.Is(err, store.ErrTooLarge):
		return a2a.InvalidParams(field, "is too large to store")
	}
	var full *store.StoreFullError
	if errors.As(err, &full) {
		return a2a.Errorf(a2a.CodeUnsupportedOperation, "%s: finish or cancel some, or retry later (the local server's bounds are A2A_MEMORY_MAX_TASKS and A2A_MEMORY_MAX_BYTES)", full.Error())
	}
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("task %s: %w", taskID, err)
}

func (s *Service) now() string { return a2a.FormatTime(s.clock.Now()) }
