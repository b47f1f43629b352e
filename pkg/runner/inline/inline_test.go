package inline_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/runnertest"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// steps answers each Step with the next scripted result and records the
// requests, their deadlines, the interrupts shown and the tasks handed
// over. A step scripted with errOutlives runs until its context ends, then
// returns service.ErrStepStopped, as the executor does; one scripted with
// errIgnoresStop runs on after that, until the test ends.
type steps struct {
	mu        sync.Mutex
	results   []service.StepResult
	errs      []error
	reqs      []service.StepRequest
	deadlines []time.Time
	awaited   []service.AwaitRequest
	handed    []*store.NewTask
}

var (
	errOutlives    = errors.New("outlives its budget")
	errIgnoresStop = errors.New("ignores its context")
)

func (s *steps) HandOver(_ context.Context, nt *store.NewTask) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handed = append(s.handed, nt)
	return nil
}

func (s *steps) Await(_ context.Context, req service.AwaitRequest) (service.StepResult, error) {
	s.awaited = append(s.awaited, req)
	return service.StepResult{Next: service.NextAwait, RequestID: req.RequestID}, nil
}

func (s *steps) Step(ctx context.Context, req service.StepRequest) (service.StepResult, error) {
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
		return service.StepResult{}, fmt.Errorf("%w: %w", service.ErrStepStopped, context.Cause(ctx))
	case errIgnoresStop:
		select {} // until the test ends
	}
	return s.results[i], err
}

type backlog struct {
	mu   sync.Mutex
	jobs []service.Job
	err  error
}

func (b *backlog) Defer(ctx context.Context, job service.Job) error {
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
	done          = service.StepResult{Next: service.NextDone, State: a2a.TaskStateCompleted}
	await         = service.StepResult{Next: service.NextAwait, State: a2a.TaskStateInputRequired, RequestID: "r1"}
	continueAfter = func(d time.Duration) service.StepResult {
		return service.StepResult{Next: service.NextContinue, After: d, State: a2a.TaskStateWorking}
	}
)

func TestStart(t *testing.T) {
	first := service.StepRequest{TaskID: "t1", Message: msg, LeaseLater: true}
	next := service.StepRequest{TaskID: "t1"}
	for _, tc := range []struct {
		name     string
		job      service.Job
		results  []service.StepResult
		errs     []error
		budget   time.Duration
		reqs     []service.StepRequest
		deferred []service.Job
		awaited  []service.AwaitRequest
	}{
		{"non-blocking: deferred, nothing runs", service.Job{TaskID: "t1", Message: msg}, nil, nil, time.Second,
			nil, []service.Job{{TaskID: "t1", Message: msg}}, nil},
		{"blocking: one step", service.Job{TaskID: "t1", Message: msg, Blocking: true}, []service.StepResult{done}, nil, time.Second,
			[]service.StepRequest{first}, nil, nil},
		{"blocking: shows an interrupt and stops", service.Job{TaskID: "t1", Message: msg, Blocking: true}, []service.StepResult{await}, nil, time.Second,
			[]service.StepRequest{first}, nil, []service.AwaitRequest{{TaskID: "t1", RequestID: "r1"}}},
		{"blocking: follows continues", service.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]service.StepResult{continueAfter(10 * time.Millisecond), continueAfter(0), done}, nil, time.Second,
			[]service.StepRequest{first, next, next}, nil, nil},
		{"blocking: a delay beyond the budget is deferred", service.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]service.StepResult{continueAfter(time.Hour)}, nil, time.Second,
			[]service.StepRequest{first}, []service.Job{{TaskID: "t1", Resume: &service.Resume{After: time.Hour}}}, nil},
		{"blocking: a step the store failed is deferred", service.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]service.StepResult{{}}, []error{errors.New("throttled")}, time.Second,
			[]service.StepRequest{first}, []service.Job{{TaskID: "t1", Message: msg}}, nil},
		{"blocking: a step that outlives the budget is handed over", service.Job{TaskID: "t1", Message: msg, Blocking: true},
			[]service.StepResult{{}}, []error{errOutlives}, 50 * time.Millisecond,
			[]service.StepRequest{first}, []service.Job{{TaskID: "t1", Message: msg}}, nil},
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
	st := &steps{results: []service.StepResult{done}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Minute, Reserve: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	require.NoError(t, r.Start(ctx, service.Job{TaskID: "t1", Blocking: true}))
	require.Len(t, st.deadlines, 1)
	want, _ := ctx.Deadline()
	assert.WithinDuration(t, want.Add(-time.Second), st.deadlines[0], time.Millisecond)

	st = &steps{}
	r = inline.New(st, bl, inline.Options{Budget: time.Minute, Reserve: 5 * time.Second})
	require.NoError(t, r.Start(ctx, service.Job{TaskID: "t2", Message: msg, Blocking: true}))
	assert.Empty(t, st.reqs, "a step ran without time for it")
	assert.Equal(t, service.Job{TaskID: "t2", Message: msg}, bl.jobs[len(bl.jobs)-1])
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
			nt := &store.NewTask{Task: a2a.Task{ID: "t1"}}
			st := &steps{results: []service.StepResult{{}}, errs: []error{tc.err}}
			bl := &backlog{}
			r := inline.New(st, bl, inline.Options{Budget: 100 * time.Millisecond})
			start := time.Now()
			require.NoError(t, r.Start(context.Background(), service.Job{TaskID: "t1", Message: msg, Blocking: true, Unsaved: nt}))
			assert.Less(t, time.Since(start), 100*time.Millisecond+time.Second, "answered within the budget and the grace")
			st.mu.Lock()
			defer st.mu.Unlock()
			assert.Equal(t, []*store.NewTask{nt}, st.handed, "the task is stored for its next runner")
			assert.Equal(t, []service.Job{{TaskID: "t1", Message: msg}}, bl.jobs, "the step runs again elsewhere")
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
	require.NoError(t, r.Start(ctx, service.Job{TaskID: "t1"}))
	assert.Len(t, bl.jobs, 1)

	bl = &backlog{err: errors.New("table gone")}
	err := inline.New(&steps{}, bl, inline.Options{}).Start(context.Background(), service.Job{TaskID: "t1"})
	assert.ErrorContains(t, err, "table gone")

	bl = &backlog{err: store.ErrNotFound}
	assert.NoError(t, inline.New(&steps{}, bl, inline.Options{}).Start(context.Background(), service.Job{TaskID: "gone"}),
		"a task that is gone needs nothing")
	assert.NoError(t, inline.New(&steps{}, bl, inline.Options{}).Cancel(context.Background(), service.CancelRequest{TaskID: "t1"}))
}

// With HandOffInterrupts (Step Functions behind the backlog), an interrupt
// is handed over to be shown by the execution that will hold its token.
func TestHandOffInterrupts(t *testing.T) {
	st := &steps{results: []service.StepResult{await}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Second, HandOffInterrupts: true})
	require.NoError(t, r.Start(context.Background(), service.Job{TaskID: "t1", Message: msg, Blocking: true}))
	assert.Empty(t, st.awaited, "not shown in the request")
	assert.Equal(t, []service.Job{{TaskID: "t1", Resume: &service.Resume{AwaitRequestID: "r1"}}}, bl.jobs)

	st = &steps{results: []service.StepResult{{Next: service.NextAwait, State: a2a.TaskStateInputRequired, RequestID: "r2", Version: 3}}}
	bl = &backlog{}
	require.NoError(t, inline.New(st, bl, inline.Options{Budget: time.Second, HandOffInterrupts: true}).Start(context.Background(),
		service.Job{TaskID: "t2", Message: msg, Blocking: true}))
	assert.Equal(t, []service.Job{{TaskID: "t2", Resume: &service.Resume{AwaitRequestID: "r2", Version: 3}}}, bl.jobs,
		"the hand-over names the version after the step")
}

// The inline runner shows interrupts in the request and counts its budget
// and the waits between steps on the injected clock; an interrupt's expiry
// is the service's (nothing times it in inline mode but the clock a reply
// is checked against).
func TestFollowsTheClock(t *testing.T) {
	runnertest.Run(t, func(t *testing.T, exec *service.Executor, clk *clocktest.Clock) service.Runner {
		return inline.New(exec, &backlog{}, inline.Options{Budget: 2 * time.Hour, Clock: clk})
	}, runnertest.Options{Blocking: true, WaitsOnTheClock: true})
}

// The budget is counted on the clock: a wait that the clock says outlasts
// it is deferred with what is left of it.
func TestBudgetFollowsTheClock(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	st := &steps{results: []service.StepResult{continueAfter(time.Minute), continueAfter(50 * time.Minute)}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Hour, Clock: clk})
	done := make(chan error, 1)
	go func() { done <- r.Start(context.Background(), service.Job{TaskID: "t1", Message: msg, Blocking: true}) }()
	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
	clk.Advance(30 * time.Minute) // past the minute; 30 of the budget's 60 minutes used
	require.NoError(t, <-done)
	assert.Len(t, st.reqs, 2)
	assert.Equal(t, []service.Job{{TaskID: "t1", Resume: &service.Resume{After: 50 * time.Minute}}}, bl.jobs,
		"50 minutes do not fit in the 30 the clock says are left")
}

// A wait cut short by the request's deadline is deferred with the rest of
// its delay, counted on the clock.
func TestAWaitCutShortKeepsItsRest(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	st := &steps{results: []service.StepResult{continueAfter(time.Minute)}}
	bl := &backlog{}
	r := inline.New(st, bl, inline.Options{Budget: time.Hour, Reserve: time.Millisecond, Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx, service.Job{TaskID: "t1", Message: msg, Blocking: true}) }()
	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
	clk.Advance(20 * time.Second)
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, []service.Job{{TaskID: "t1", Resume: &service.Resume{After: 40 * time.Second}}}, bl.jobs)
}

func TestAcrossEpochs(t *testing.T) { clocktest.RunAcrossEpochs(t, ".") }
