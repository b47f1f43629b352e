package inline_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/runnertest"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// steps answers each Step with the next scripted result and records the
// requests, their deadlines, the interrupts shown and the tasks handed
// over. A step scripted with errOutlives runs until its context ends, then
// returns engine.ErrStepStopped, as the executor does; one scripted with
// errIgnoresStop runs on after that, until the test ends.
type steps struct {
	mu        sync.Mutex
	results   []engine.StepResult
	errs      []error
	reqs      []engine.Job
	deadlines []time.Time
	awaited   []engine.AwaitRequest
	handed    []*engine.Unsaved
}

var (
	errOutlives    = errors.New("outlives its budget")
	errIgnoresStop = errors.New("ignores its context")
)

func (s *steps) HandOver(_ context.Context, u *engine.Unsaved) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handed = append(s.handed, u)
	return nil
}

func (s *steps) StepUnsaved(ctx context.Context, u *engine.Unsaved) (engine.StepResult, error) {
	return s.Step(ctx, u.Job())
}

func (s *steps) Await(_ context.Context, req engine.AwaitRequest) (engine.StepResult, error) {
	s.awaited = append(s.awaited, req)
	return engine.StepResult{Next: engine.NextAwait, RequestID: req.RequestID}, nil
}

func (s *steps) Step(ctx context.Context, req engine.Job) (engine.StepResult, error) {
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, req)
	d, _ := ctx.Deadline()
	s.deadlines = append(s.deadlines, d)
	var err error
	if i < len(s.errs) {
		err = s.errs[i]
	}
	s.mu.Unlock()
	switch err {
	case errOutlives:
		<-ctx.Done()
		return engine.StepResult{}, fmt.Errorf("%w: %w", engine.ErrStepStopped, context.Cause(ctx))
	case errIgnoresStop:
		select {} // until the test ends
	}
	return s.results[i], err
}

type backlog struct {
	mu   sync.Mutex
	jobs []engine.Job
	err  error
}

func (b *backlog) Defer(ctx context.Context, job engine.Job) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	b.jobs = append(b.jobs, job)
	return b.err
}

var (
	msg           = &a2a.Message{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}}
	done          = engine.StepResult{Next: engine.NextDone, State: a2a.TaskStateCompleted}
	await         = engine.StepResult{Next: engine.NextAwait, State: a2a.TaskStateInputRequired, RequestID: "r1"}
	continueAfter = func(d time.Duration) engine.StepResult {
		return engine.StepResult{Next: engine.NextContinue, After: d, State: a2a.TaskStateWorking}
	}
)

func TestStart(t *testing.T) {
	first := engine.Job{TaskID: "t1", Message: msg, LeaseLater: true}
	next := engine.Job{TaskID: "t1"}
	for _, tc := range []struct {
		name     string
		job      engine.Job
		results  []engine.StepResult
		errs     []error
		budget   time.Duration
		reqs     []engine.Job
		deferred []engine.Job
		awaited  []engine.AwaitRequest
	}{
		{"non-blocking: deferred, nothing runs", engine.Job{TaskID: "t1", Message: msg}, nil, nil, time.Second,
			nil, []engine.Job{{TaskID: "t1", Message: msg}}, nil},
		{"blocking: one step", engine.Job{TaskID: "t1", Message: msg, Blocking: true}, []engine.StepResult{done}, nil, time.Second,
			[]engine.Job{first}, nil, nil},
		{"blocking: shows an interrupt and stops", engine.Job{TaskID: "t1", Message: msg, Blocking: true}, []engine.StepResult{await}, nil, time.Second,
			[]engine.Job{first}, nil, []engine.AwaitRequest{{TaskID: "t1", RequestID: "r1"}}},
		{"blocking: follows continues", engine.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]engine.StepResult{continueAfter(10 * time.Millisecond), continueAfter(0), done}, nil, time.Second,
			[]engine.Job{first, next, next}, nil, nil},
		{"blocking: a delay beyond the budget is deferred", engine.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]engine.StepResult{continueAfter(time.Hour)}, nil, time.Second,
			[]engine.Job{first}, []engine.Job{{TaskID: "t1", Resume: &engine.Resume{After: time.Hour}}}, nil},
		{"blocking: a step the store failed is deferred", engine.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]engine.StepResult{{}}, []error{errors.New("throttled")}, time.Second,
			[]engine.Job{first}, []engine.Job{{TaskID: "t1", Message: msg}}, nil},
		{"blocking: a step that outlives the budget is handed over", engine.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]engine.StepResult{{}}, []error{errOutlives}, 50 * time.Millisecond,
			[]engine.Job{first}, []engine.Job{{TaskID: "t1", Message: msg}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &steps{results: tc.results, errs: tc.errs}
			bl := &backlog{}
			r := inline.New(st, bl, inline.Options{Budget: tc.budget})
			start := time.Now()
			require.NoError(t, r.Start(context.Background(), tc.job))
			assert.Equal(t, tc.reqs, st.reqs)
			assert.Equal(t, tc.deferred, bl.jobs)
			assert.Equal(t, tc.awaited, st.awaited)
			assert.Less(t, time.Since(start), tc.budget+time.Second, "the request is answered within its budget")
		})
	}
}

// The request's deadline, less the reserve, bounds the steps too; with no
// time left, the job is deferred at once.
func TestStartHonoursTheRequestDeadline(t *testing.T) {
	st := &steps{results: []engine.StepResult{done}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Minute, Reserve: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t1", Blocking: true}))
	require.Len(t, st.deadlines, 1)
	want, _ := ctx.Deadline()
	assert.WithinDuration(t, want.Add(-time.Second), st.deadlines[0], time.Millisecond)

	st = &steps{}
	r = inline.New(st, bl, inline.Options{Budget: time.Minute, Reserve: 5 * time.Second})
	require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t2", Message: msg, Blocking: true}))
	assert.Empty(t, st.reqs, "a step ran without time for it")
	assert.Equal(t, engine.Job{TaskID: "t2", Message: msg}, bl.jobs[len(bl.jobs)-1])
}

// A step that outlives the budget of a blocking send whose task is not
// stored yet (the first step stores it) is stopped and handed over: the
// task is stored, working, for the runner it goes to. An agent that does
// not heed its context's end does not hold the request: the runner answers
// after a short grace, and the step it leaves behind stores nothing more.
func TestAStepLongerThanTheBudgetIsHandedOver(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"the agent stops", errOutlives},
		{"the agent runs on", errIgnoresStop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &engine.Unsaved{Task: store.NewTask{Task: a2a.Task{ID: "t1", History: []a2a.Message{*msg}}}}
			st := &steps{results: []engine.StepResult{{}}, errs: []error{tc.err}}
			bl := &backlog{}
			r := inline.New(st, bl, inline.Options{Budget: 100 * time.Millisecond})
			start := time.Now()
			require.NoError(t, r.StartUnsaved(context.Background(), u))
			assert.Less(t, time.Since(start), 100*time.Millisecond+time.Second, "answered within the budget and the grace")
			st.mu.Lock()
			defer st.mu.Unlock()
			assert.Equal(t, []*engine.Unsaved{u}, st.handed, "the task is stored for its next runner")
			assert.Equal(t, []engine.Job{{TaskID: "t1", Message: msg}}, bl.jobs, "the step runs again elsewhere")
		})
	}
}

// Deferring still works when the request's context is done, and a job
// that cannot be deferred is an error (the service then fails the task).
func TestDeferErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bl := &backlog{}
	r := inline.New(&steps{}, bl, inline.Options{})
	require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t1"}))
	assert.Len(t, bl.jobs, 1)

	bl = &backlog{err: errors.New("table gone")}
	err := inline.New(&steps{}, bl, inline.Options{}).Start(context.Background(), engine.Job{TaskID: "t1"})
	assert.ErrorContains(t, err, "table gone")

	bl = &backlog{err: store.ErrNotFound}
	assert.NoError(t, inline.New(&steps{}, bl, inline.Options{}).Start(context.Background(), engine.Job{TaskID: "gone"}),
		"a task that is gone needs nothing")
	assert.NoError(t, inline.New(&steps{}, bl, inline.Options{}).Cancel(context.Background(), engine.CancelRequest{TaskID: "t1"}))
}

// With HandOffInterrupts (Step Functions behind the backlog), an interrupt
// is handed over to be shown by the execution that will hold its token.
func TestHandOffInterrupts(t *testing.T) {
	st := &steps{results: []engine.StepResult{await}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Second, HandOffInterrupts: true})
	require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "t1", Message: msg, Blocking: true}))
	assert.Empty(t, st.awaited, "not shown in the request")
	assert.Equal(t, []engine.Job{{TaskID: "t1", Resume: &engine.Resume{AwaitRequestID: "r1"}}}, bl.jobs)

	st = &steps{results: []engine.StepResult{{Next: engine.NextAwait, State: a2a.TaskStateInputRequired, RequestID: "r2", Version: 3}}}
	bl = &backlog{}
	require.NoError(t, inline.New(st, bl, inline.Options{Budget: time.Second, HandOffInterrupts: true}).Start(context.Background(),
		engine.Job{TaskID: "t2", Message: msg, Blocking: true}))
	assert.Equal(t, []engine.Job{{TaskID: "t2", Resume: &engine.Resume{AwaitRequestID: "r2", Version: 3}}}, bl.jobs,
		"the hand-over names the version after the step")
}

// The inline runner shows interrupts in the request and counts its budget
// and the waits between steps on the injected clock; an interrupt's expiry
// is the service's (nothing times it in inline mode but the clock a reply
// is checked against).
func TestFollowsTheClock(t *testing.T) {
	runnertest.Run(t, func(t *testing.T, exec *engine.Executor, clk *clocktest.Clock) engine.Runner {
		return inline.New(exec, &backlog{}, inline.Options{Budget: 2 * time.Hour, Clock: clk})
	}, runnertest.Options{Blocking: true, WaitsOnTheClock: true})
}

// The budget is counted on the clock: a wait that the clock says outlasts
// it is deferred with what is left of it.
func TestBudgetFollowsTheClock(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	st := &steps{results: []engine.StepResult{continueAfter(time.Minute), continueAfter(50 * time.Minute)}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Hour, Clock: clk})
	done := make(chan error, 1)
	go func() { done <- r.Start(context.Background(), engine.Job{TaskID: "t1", Message: msg, Blocking: true}) }()
	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
	clk.Advance(30 * time.Minute) // past the minute; 30 of the budget's 60 minutes used
	require.NoError(t, <-done)
	assert.Len(t, st.reqs, 2)
	assert.Equal(t, []engine.Job{{TaskID: "t1", Resume: &engine.Resume{After: 50 * time.Minute}}}, bl.jobs,
		"50 minutes do not fit in the 30 the clock says are left")
}

// A wait cut short by the request's deadline is deferred with the rest of
// its delay, counted on the clock.
func TestAWaitCutShortKeepsItsRest(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	st := &steps{results: []engine.StepResult{continueAfter(time.Minute)}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Hour, Reserve: time.Millisecond, Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx, engine.Job{TaskID: "t1", Message: msg, Blocking: true}) }()
	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
	clk.Advance(20 * time.Second)
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, []engine.Job{{TaskID: "t1", Resume: &engine.Resume{After: 40 * time.Second}}}, bl.jobs)
}

func TestAcrossEpochs(t *testing.T) { clocktest.RunAcrossEpochs(t, ".") }

// ranOn is an Executor whose steps record the goroutine each ran on.
type ranOn struct {
	steps
	ids []string
}

func (g *ranOn) Step(context.Context, engine.Job) (engine.StepResult, error) {
	g.ids = append(g.ids, runnertest.GoroutineID())
	return done, nil
}

// A request's steps run on a goroutine that waits for the next step
// (runner.Goroutines): one after the other, two sends' steps run on the
// same one, which ends once the runner is unreachable.
func TestStepsRunOnAGoroutineThatWaits(t *testing.T) {
	exec := &ranOn{}
	r := inline.New(exec, &backlog{}, inline.Options{Budget: time.Minute})
	require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "t1", Blocking: true}))
	require.Len(t, exec.ids, 1)
	require.Eventually(t, func() bool { return runnertest.Waiting(exec.ids[0]) }, 5*time.Second, time.Millisecond,
		"the goroutine waits for the next step")
	require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "t2", Blocking: true}))
	require.Len(t, exec.ids, 2)
	assert.Equal(t, exec.ids[0], exec.ids[1], "the second step ran on the goroutine of the first")
	assert.NotEqual(t, runnertest.GoroutineID(), exec.ids[0], "not on the request's")
	require.Eventually(t, func() bool { return runnertest.Waiting(exec.ids[0]) }, 5*time.Second, time.Millisecond,
		"it waits for the next step")

	r = nil
	require.Eventually(t, func() bool { runtime.GC(); return !runnertest.Alive(exec.ids[0]) }, 5*time.Second, 10*time.Millisecond,
		"it ends once the runner is unreachable")
}
