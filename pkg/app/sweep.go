package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

// sweepLoop takes over, at once and then every interval, the tasks whose
// lease lapsed (their runner died: this server before a restart, or
// another process on the same table), running them on r; each sweep's
// metrics are written as it ends (tel, nil for none). The returned
// function stops it and waits.
func sweepLoop(exec *service.Executor, r service.Starter, clk clock.Clock, every time.Duration, log *slog.Logger, tel *telemetry.Function) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			res, err := telemetry.Background(ctx, tel, func(ctx context.Context) (service.SweepResult, error) { return exec.Sweep(ctx, r) })
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
