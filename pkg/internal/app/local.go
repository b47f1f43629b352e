// Package app assembles the local server from configuration (local.go,
// run.go). The Lambda functions are assembled by packages of their own, so
// that each links only the AWS service clients it calls (Go initializes
// every linked package at every cold start): httpfn (send and tasks),
// workerfn, sweepfn, pushfn and deliverfn, on what they share
// (pkg/internal/setup) and what every function needs at start-up,
// pkg/boot, which also assembles the card function. This package links
// them all.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/console"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/folder"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// LocalAuthenticator returns bearer authentication when tokens are
// configured (A2A_AUTH=jwt is refused: no gateway verifies the tokens).
// Without tokens it admits everyone as one anonymous caller, but only on a
// loopback bind (RunLocal says so in the log, anonymousWarning); on any
// other bind it refuses to start.
func LocalAuthenticator(cfg config.Config) (httpapi.Authenticator, error) {
	if cfg.Auth == config.AuthJWT {
		return nil, errors.New("A2A_AUTH=jwt needs API Gateway's JWT authorizer in front of the server: the local server identifies callers by bearer token; unset A2A_AUTH")
	}
	if len(cfg.Tokens) > 0 {
		return auth.NewBearer(cfg.Tokens), nil
	}
	if !cfg.Loopback() {
		return nil, fmt.Errorf("A2A_HOST=%s is not a loopback address: set A2A_BEARER_TOKEN (or A2A_BEARER_TOKENS) to serve on it", cfg.Host)
	}
	return auth.Anonymous{}, nil
}

// anonymousWarning is what the local server logs when it serves without
// authentication.
const anonymousWarning = "authentication is off: no A2A_BEARER_TOKEN is set, so every local caller is the same anonymous identity"

// ExecutionLocal is the execution mode of the local server's profile: task
// steps run in goroutines.
const ExecutionLocal = "local"

// Local is the all-in-one local server: a task store (in memory unless
// configured otherwise), goroutine runner and one agent behind the full HTTP
// handler.
type Local struct {
	Handler http.Handler
	Agent   agent.Agent
	Store   store.Store
	runner  *local.Runner
	push    *localPush
	// stopWatch stops following the store's changes.
	stopWatch func()
	// stopSweep stops taking over tasks whose runner died.
	stopSweep func()
}

// LocalOptions are the collaborators of a local server that tests replace.
type LocalOptions struct {
	Auth  httpapi.Authenticator
	Clock clock.Clock
	Log   *slog.Logger
	// Store keeps the tasks; nil means a new in-memory store. RunLocal
	// passes the DynamoDB store when the configuration names it; a test
	// can pass one to run the whole server on it.
	Store store.Store
	// Changes, with Store, reports the store's task changes to push
	// notifications until the server closes (see FollowChanges); nil
	// turns push notifications off for a store given in Store.
	Changes ChangeSource
	// Push replaces parts of the push notification pipeline.
	Push PushOptions
	// Files keeps the files (the content parts too large for a task item,
	// uploads); nil means a folder, A2A_FILES_DIR, whose signed URLs the
	// server serves at /files/. RunLocal passes the S3 bucket
	// A2A_FILES_BUCKET names when it is set.
	Files objectstore.Store
	// FilesURL is the base URL of the folder's file URLs; empty means
	// A2A_PUBLIC_URL (a test whose cards take each request's URL sets
	// its listener's).
	FilesURL string
	// Telemetry, when set, gives the work no request waits for (task
	// steps, sweeps) its metrics sink and tracer, and writes their
	// metrics when each ends, as the worker and sweep functions do; the
	// requests' own telemetry is telemetry.Middleware's (RunLocal).
	Telemetry *telemetry.Function
}

// ChangeSource calls fn with every task change of a store until ctx ends;
// it calls started once every change made from then on reaches fn.
type ChangeSource func(ctx context.Context, fn func(store.TaskChange), started func())

// followStartTimeout bounds how long NewLocal waits for a change source to
// start (its first listing of the stream): past it the server serves, and
// says that push notifications may miss the first changes.
const followStartTimeout = 10 * time.Second

// NewLocal builds a local server for ag.
func NewLocal(cfg config.Config, ag agent.Agent, o LocalOptions) (*Local, error) {
	o.Log = cmp.Or(o.Log, slog.New(slog.DiscardHandler))
	if o.Auth == nil {
		return nil, errors.New("app: an authenticator is required")
	}
	if cfg.Push.Enabled && !followsChanges(o) {
		o.Log.Warn("push notifications are off: the task store given to the local server reports no changes")
	}
	cfg, edge := localEdge(cfg, o)
	var (
		taskStore = o.Store
		onChange  func(store.TaskChange)
		pipeline  *localPush
		stopWatch = func() {}
	)
	if taskStore == nil {
		mo := memoryOptions(cfg, o.Clock)
		mo.OnChange = func(c store.TaskChange) { onChange(c) }
		taskStore = memory.New(mo)
	}
	objects := o.Files
	var folderFiles http.Handler
	if objects == nil {
		f, err := folder.New(cfg.Files.Dir, cmp.Or(o.FilesURL, cfg.PublicURL), folder.Options{Clock: o.Clock})
		if err != nil {
			return nil, fmt.Errorf("A2A_FILES_DIR=%s: %w", cfg.Files.Dir, err)
		}
		objects, folderFiles = f, f.Handler()
	}
	fs := setup.Files(cfg, objects, o.Clock, o.Log)
	if cfg.Push.Enabled {
		var err error
		if pipeline, err = newLocalPush(cfg, taskStore, fs, o.Push, o.Clock, o.Log); err != nil {
			return nil, err
		}
		onChange = pipeline.local.OnChange
		if o.Changes != nil {
			stopWatch = followChanges(o.Changes, onChange, o.Log)
		}
	} else {
		onChange = func(store.TaskChange) {}
	}
	exec := engine.NewExecutor(taskStore, ag, setup.Executor(cfg, o.Clock, o.Log, fs))
	var steps local.Executor = exec
	if t := o.Telemetry; t != nil && (t.Metrics != nil || t.Tracer != nil) {
		steps = stepTelemetry{exec, t}
	}
	runner := local.New(steps, local.Options{Clock: o.Clock, Logger: o.Log})
	stopSweep := sweepLoop(exec, runner, clock.Or(o.Clock), sweepInterval(cfg.LeaseDuration), o.Log, o.Telemetry)
	svc := service.New(taskStore, runner, ag.Info(), setup.Service(cfg), service.Options{Clock: o.Clock, Logger: o.Log, CheckPushConfig: setup.PushChecker(cfg), Files: fs})
	if pipeline != nil {
		svc.WithRedriver(pipeline.local)
	}
	edge.Service = svc
	if pipeline != nil {
		edge.JWKS = pipeline.keys
	}
	api, err := httpapi.New(startup.HandlerOptions(cfg, ag.Info(), edge))
	m := mounts{api: api, files: folderFiles}
	if err == nil && cfg.Console {
		m.console, err = console.New(console.Options{Service: svc, Auth: o.Auth, Bearer: !edge.Anonymous, Push: cfg.Push.Enabled, AgentName: ag.Info().Name, Logger: o.Log})
	}
	h := guardLocal(m, cfg, edge)
	l := &Local{Handler: h, Agent: ag, Store: taskStore, runner: runner, push: pipeline, stopWatch: stopWatch, stopSweep: stopSweep}
	if err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// followsChanges reports whether NewLocal sees the task changes push
// notifications are made from: its own memory store's, or o.Changes.
func followsChanges(o LocalOptions) bool { return o.Store == nil || o.Changes != nil }

// localEdge returns the settings NewLocal serves with and the edge of its
// handler, without the service and the JWKS: all that decides its cards.
func localEdge(cfg config.Config, o LocalOptions) (config.Config, startup.Edge) {
	cfg.Push.Enabled = cfg.Push.Enabled && followsChanges(o)
	_, anonymous := o.Auth.(auth.Anonymous)
	backend := cfg.TaskStore.Backend
	if o.Store == nil {
		backend = config.BackendMemory
	}
	return cfg, startup.Edge{Auth: o.Auth, Anonymous: anonymous, FilesKept: true, Local: true, StoreBackend: backend, ExecutionMode: ExecutionLocal, Clock: o.Clock, Log: o.Log}
}

// guardLocal guards h as a local server on a loopback address without
// authentication must be (see guardLoopback).
func guardLocal(h http.Handler, cfg config.Config, edge startup.Edge) http.Handler {
	if edge.Anonymous && cfg.Loopback() {
		return guardLoopback(h, cfg.PublicURL, cfg.CORSAllowedOrigins)
	}
	return h
}

// NewLocalCard returns the handler of the public agent card that NewLocal
// with the same arguments serves (the same bytes, headers and guard), and
// nothing else: what RunLocal serves while NewLocal builds the rest.
func NewLocalCard(cfg config.Config, info agent.Info, o LocalOptions) (http.Handler, error) {
	o.Log = cmp.Or(o.Log, slog.New(slog.DiscardHandler))
	cfg, edge := localEdge(cfg, o)
	edge.Routes = httpapi.RoutesCard
	api, err := httpapi.New(startup.HandlerOptions(cfg, info, edge))
	if err != nil {
		return nil, err
	}
	return guardLocal(api, cfg, edge), nil
}

// followChanges runs changes with fn until the returned stop is called,
// once changes has started: a task the server's first requests change must
// not go unseen by push notifications (a follower of a stream starts at
// its end).
func followChanges(changes ChangeSource, fn func(store.TaskChange), log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done, started := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() { defer close(done); changes(ctx, fn, func() { once.Do(func() { close(started) }) }) }()
	timeout := time.NewTimer(followStartTimeout) // real time: it bounds waiting for I/O
	defer timeout.Stop()
	select {
	case <-started:
	case <-done:
	case <-timeout.C:
		log.Warn("the task store's changes are not followed yet: push notifications may miss the first tasks' changes", "waited", followStartTimeout.String())
	}
	return func() { cancel(); <-done }
}

// mounts serves the console at console.Path (and redirects the path
// without its slash) and the folder's signed URLs at folder.Path, when
// they are set, and api elsewhere: what a ServeMux with those patterns
// would do, without a second pass of pattern matching on every A2A
// request (api routes with a ServeMux of its own). A path that is not
// clean goes to api, whose ServeMux redirects it to the clean one.
type mounts struct {
	api, console, files http.Handler
}

func (m mounts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case m.console != nil && strings.HasPrefix(p, console.Path) && cleanPath(p):
		m.console.ServeHTTP(w, r)
	case m.console != nil && p == strings.TrimSuffix(console.Path, "/") && readMethod(r.Method):
		http.Redirect(w, r, console.Path, http.StatusMovedPermanently)
	case m.files != nil && strings.HasPrefix(p, folder.Path) && cleanPath(p) && (readMethod(r.Method) || r.Method == http.MethodPut):
		m.files.ServeHTTP(w, r)
	default:
		m.api.ServeHTTP(w, r)
	}
}

// readMethod reports whether a ServeMux pattern for GET serves method.
func readMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// cleanPath reports whether p is its own clean form, as a ServeMux sees
// it (a trailing slash kept).
func cleanPath(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// stepTelemetry runs each action of the local runner (a step, showing an
// interrupt, expiring it) as telemetry.Background: its metrics
// (TasksCompleted, TasksFailed, StepDuration...) are written when it ends.
type stepTelemetry struct {
	local.Executor
	tel *telemetry.Function
}

func (s stepTelemetry) Step(ctx context.Context, req engine.Job) (engine.StepResult, error) {
	return telemetry.Background(ctx, s.tel, func(ctx context.Context) (engine.StepResult, error) { return s.Executor.Step(ctx, req) })
}

func (s stepTelemetry) Await(ctx context.Context, req engine.AwaitRequest) (engine.StepResult, error) {
	return telemetry.Background(ctx, s.tel, func(ctx context.Context) (engine.StepResult, error) { return s.Executor.Await(ctx, req) })
}

func (s stepTelemetry) Expire(ctx context.Context, taskID, requestID string) (engine.StepResult, error) {
	return telemetry.Background(ctx, s.tel, func(ctx context.Context) (engine.StepResult, error) {
		return s.Executor.Expire(ctx, taskID, requestID)
	})
}

// Close stops the tasks still running and waits for them, then delivers
// the push notifications under way (a few seconds at most).
func (l *Local) Close() {
	l.stopSweep()
	l.runner.Close()
	l.stopWatch()
	if l.push != nil {
		l.push.close()
	}
}
