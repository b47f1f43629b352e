// Package serviceopts maps the configuration to the options of the task
// service and its executor, which the local server and every Lambda
// function that keeps tasks share.
package serviceopts

import (
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Service is the service part of the configuration.
func Service(cfg config.Config) service.Config {
	return service.Config{BlockingDefault: cfg.BlockingDefault, BlockingTimeout: cfg.BlockingTimeout, PushNotifications: cfg.Push.Enabled, LeaseDuration: cfg.LeaseDuration,
		IdempotencyWindow: cfg.IdempotencyWindow, NoIdempotency: cfg.IdempotencyWindow == 0}
}

// Executor is the executor part of the configuration.
func Executor(cfg config.Config, clk clock.Clock, log *slog.Logger) service.ExecutorOptions {
	return service.ExecutorOptions{Clock: clk, Logger: log, InterruptTTL: cfg.InterruptTTL, InterruptTombstoneTTL: cfg.InterruptTombstoneTTL,
		LeaseDuration: cfg.LeaseDuration, MaxTakeovers: cfg.MaxTakeovers}
}
