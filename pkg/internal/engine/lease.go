package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// lease is the step's lease, lasting the executor's lease duration past
// wait from now.
func (w *taskWriter) lease(wait time.Duration) store.Lease {
	return store.Lease{Owner: w.leaseOwner, Until: w.x.clock.Now().Add(wait + w.x.lease), Trigger: w.trigger}
}

// leaseKeeper renews the leases of an executor's running steps, all of them
// every third of a lease, from one goroutine. The goroutine starts with the
// first step and then waits, without a timer, while no step runs.
type leaseKeeper struct {
	mu      sync.Mutex
	steps   map[*taskWriter]struct{}
	started bool
	// wake tells the goroutine that the first step of a busy period began,
	// or that the last one ended.
	wake chan struct{}
}

// hold renews w's lease until release.
func (k *leaseKeeper) hold(x *Executor, w *taskWriter) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.started {
		k.started = true
		k.steps, k.wake = map[*taskWriter]struct{}{}, make(chan struct{}, 1)
		go k.renew(x)
	}
	k.steps[w] = struct{}{}
	if len(k.steps) == 1 {
		k.poke()
	}
}

func (k *leaseKeeper) poke() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// release stops renewing w's lease and reports whether it was lost (a
// sweep took the task over, presuming the step dead).
func (k *leaseKeeper) release(w *taskWriter) bool {
	k.mu.Lock()
	delete(k.steps, w)
	if len(k.steps) == 0 {
		k.poke()
	}
	k.mu.Unlock()
	return w.leaseLost.Load()
}

func (k *leaseKeeper) idle() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.steps) == 0
}

// renew renews every held lease each third of a lease while steps run. A
// lost lease, or a task that finished or is gone, cancels its step; a
// renewal the store fails is tried again at the next tick.
func (k *leaseKeeper) renew(x *Executor) {
	var steps []*taskWriter
	for {
		for k.idle() {
			<-k.wake
		}
		t := x.clock.NewTimer(x.lease / 3)
		fired := false
		for !fired && !k.idle() {
			select {
			case <-t.C():
				fired = true
			case <-k.wake:
			}
		}
		if !fired {
			t.Stop()
			continue
		}
		k.mu.Lock()
		steps = steps[:0]
		for w := range k.steps {
			steps = append(steps, w)
		}
		k.mu.Unlock()
		for _, w := range steps {
			k.mu.Lock()
			_, held := k.steps[w]
			k.mu.Unlock()
			if held { // a step that just ended wrote its own lease
				x.renewLease(w)
			}
		}
	}
}

func (x *Executor) renewLease(w *taskWriter) {
	if w.stopped() {
		return // the runner stopped the step; its task went on elsewhere
	}
	ctx, cancel := context.WithTimeout(context.Background(), x.lease/3)
	defer cancel()
	// A step that has not written yet takes its lease with this write.
	took, err := w.takeLease(ctx)
	if !took {
		err = x.store.RenewLease(ctx, w.taskID, w.leaseOwner, x.clock.Now().Add(x.lease))
	}
	var ce *store.ConflictError
	switch {
	case err == nil:
	case errors.As(err, &ce) && ce.Reason == store.ConflictTerminal, errors.Is(err, store.ErrNotFound):
		w.cancelStep() // its next write ends the step quietly
	case errors.As(err, &ce):
		w.leaseLost.Store(true)
		w.cancelStep()
	default:
		x.log.WarnContext(ctx, "could not renew the task's lease", "taskId", w.taskID, "error", err)
	}
}

// SweepResult counts what a sweep did.
type SweepResult struct {
	// TakenOver are tasks whose step was started again; Failed are tasks
	// failed after too many takeovers.
	TakenOver int `json:"takenOver"`
	Failed    int `json:"failed"`
}

// Starter starts a job; every Runner is one.
type Starter interface {
	Start(ctx context.Context, job Job) error
}

// Sweep takes over the tasks whose lease lapsed: their runner died (a
// crashed process, a function that timed out or exited). Each is handed to
// r to run its unfinished step again, or, once it was taken over
// MaxTakeovers times, failed with a status message that says why. Of
// several sweeps that see the same task, one takes it. A task r could not
// start keeps its takeover lease, which lapses in turn: the next sweep
// tries again, counting.
func (x *Executor) Sweep(ctx context.Context, r Starter) (SweepResult, error) {
	var res SweepResult
	lapsed, err := x.store.LapsedLeases(ctx, x.clock.Now(), LeaseSweepLimit)
	if err != nil {
		return res, fmt.Errorf("read lapsed leases: %w", err)
	}
	var errs []error
	for _, l := range lapsed {
		if l.Takeovers >= x.maxTakeovers {
			failed, err := x.failStuck(ctx, l)
			if err != nil {
				errs = append(errs, err)
			} else if failed {
				res.Failed++
			}
			continue
		}
		n, err := x.store.TakeOver(ctx, l, "sweep-"+uuid.NewString(), x.clock.Now().Add(x.lease))
		var ce *store.ConflictError
		switch {
		case errors.As(err, &ce), errors.Is(err, store.ErrNotFound):
			continue // another sweep, the runner or the client got there first
		case err != nil:
			errs = append(errs, fmt.Errorf("take over task %s: %w", l.TaskID, err))
			continue
		}
		x.log.WarnContext(ctx, "task taken over: its runner stopped renewing its lease", "taskId", l.TaskID, "takeover", n,
			"leaseLapsedAt", l.Lease.Until, "trigger", l.Lease.Trigger)
		if err := r.Start(ctx, Job{TaskID: l.TaskID, Takeover: n, Trigger: l.Lease.Trigger}); err != nil {
			errs = append(errs, fmt.Errorf("restart task %s: %w", l.TaskID, err))
			continue
		}
		res.TakenOver++
	}
	return res, errors.Join(errs...)
}

// failStuck fails a task that was taken over too often, if it still holds
// the lapsed lease l.
func (x *Executor) failStuck(ctx context.Context, l store.LapsedLease) (bool, error) {
	reason := fmt.Sprintf("The task failed: its runner stopped responding (a crashed process or a timed-out function) %d times; it was started again %d times and gave up.",
		l.Takeovers+1, l.Takeovers)
	res, err := x.failIf(ctx, l.TaskID, reason, func(rec *store.TaskRecord) bool {
		return rec.Lease.Held() && rec.Lease.Owner == l.Lease.Owner && rec.Lease.Until.Equal(l.Lease.Until)
	})
	if err != nil {
		return false, fmt.Errorf("fail stuck task %s: %w", l.TaskID, err)
	}
	if res.failed {
		x.log.WarnContext(ctx, "task failed: taken over too often", "taskId", l.TaskID, "takeovers", l.Takeovers)
		return true, nil
	}
	return false, nil
}

// stepTrigger is what started the step req asks for: a continue when req
// says nothing.
func stepTrigger(req *Job) store.Trigger {
	if t := req.StepTrigger(); t != "" {
		return t
	}
	return store.TriggerContinue
}
