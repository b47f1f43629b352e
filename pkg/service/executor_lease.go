package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// stepTrigger is what started the step req asks for.
func stepTrigger(req StepRequest) Trigger {
	switch {
	case req.Reply != nil:
		return TriggerReply
	case req.Message != nil:
		return TriggerMessage
	case req.Trigger != "":
		return req.Trigger
	}
	return TriggerContinue
}

// lease is the step's lease, lasting the executor's lease duration past
// wait from now.
func (w *taskWriter) lease(wait time.Duration) *Lease {
	return &Lease{Owner: w.leaseOwner, Until: w.x.clock.Now().Add(wait + w.x.lease), Trigger: w.trigger}
}

// holdLease renews the step's lease every third of its duration until the
// returned release is called, which reports whether the lease was lost. A
// lost lease (a sweep took the task over, presuming this step dead) or a
// task that finished cancels the step through cancel; a renewal the store
// fails is tried again at the next tick.
func (x *Executor) holdLease(ctx context.Context, w *taskWriter, cancel context.CancelFunc) (release func() bool) {
	var (
		lost atomic.Bool
		wg   sync.WaitGroup
	)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			t := x.clock.NewTimer(x.lease / 3)
			select {
			case <-done:
				t.Stop()
				return
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
			err := x.store.RenewLease(ctx, w.taskID, w.leaseOwner, x.clock.Now().Add(x.lease))
			var ce *ConflictError
			switch {
			case err == nil:
				continue
			case errors.As(err, &ce) && ce.Reason == ConflictTerminal, errors.Is(err, ErrNotFound):
				cancel() // its next write ends the step quietly
				return
			case errors.As(err, &ce):
				lost.Store(true)
				cancel()
				return
			}
			x.log.WarnContext(ctx, "could not renew the task's lease", "taskId", w.taskID, "error", err)
		}
	}()
	return func() bool {
		close(done)
		wg.Wait()
		return lost.Load()
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
		n, err := x.store.TakeOver(ctx, l, "sweep-"+x.newID(), x.clock.Now().Add(x.lease))
		var ce *ConflictError
		switch {
		case errors.As(err, &ce), errors.Is(err, ErrNotFound):
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
func (x *Executor) failStuck(ctx context.Context, l LapsedLease) (bool, error) {
	reason := fmt.Sprintf("The task failed: its runner stopped responding (a crashed process or a timed-out function) %d times; it was started again %d times and gave up.",
		l.Takeovers+1, l.Takeovers)
	res, err := x.failIf(ctx, l.TaskID, reason, func(rec *TaskRecord) bool {
		return rec.Lease != nil && rec.Lease.Owner == l.Lease.Owner && rec.Lease.Until.Equal(l.Lease.Until)
	})
	if err != nil {
		return false, fmt.Errorf("fail stuck task %s: %w", l.TaskID, err)
	}
	if res.State == a2a.TaskStateFailed {
		x.log.WarnContext(ctx, "task failed: taken over too often", "taskId", l.TaskID, "takeovers", l.Takeovers)
		return true, nil
	}
	return false, nil
}
