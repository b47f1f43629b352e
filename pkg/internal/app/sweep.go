package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
)

// sweepInterval is how often the local server sweeps for tasks whose
// runner died: a quarter lease. A runner renews its lease every third of
// a lease, so a task's lease lapses at most a lease after its runner died
// (or after its next step was due), and the next sweep comes at most a
// quarter lease later, whatever its phase: a task is taken over within a
// lease and a quarter (75 s by default), inside the 1.5 leases docs/execution.md
// promises, with a quarter lease to spare for a restart and the takeover
// itself. (A half lease let a lease that lapsed just after a sweep wait
// 1.5 leases, and then some: one task of 13 took 93.9 s.)
func sweepInterval(lease time.Duration) time.Duration { return lease / 4 }

// sweepLoop takes over, at once and then every interval, the tasks whose
// lease lapsed (their runner died: this server before a restart, or
// another process on the same table), running them on r; each sweep's
// metrics are written as it ends (tel, nil for none). The returned
// function stops it and waits.
func sweepLoop(exec *engine.Executor, r engine.Starter, clk clock.Clock, every time.Duration, log *slog.Logger, tel *telemetry.Function) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			res, err := telemetry.Background(ctx, tel, func(ctx context.Context) (engine.SweepResult, error) { return exec.Sweep(ctx, r) })
			if err != nil && ctx.Err() == nil {
				log.ErrorContext(ctx, "sweep for tasks whose runner died failed", "error", err)
			}
			if res.TakenOver+res.Failed > 0 {
				log.InfoContext(ctx, "swept tasks whose runner died", "takenOver", res.TakenOver, "failed", res.Failed)
			}
			if clock.Sleep(ctx, clk, every) != nil {
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
