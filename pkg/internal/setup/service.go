package setup

import (
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/s3store"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Service is the service part of the configuration.
func Service(cfg config.Config) service.Config {
	return service.Config{BlockingDefault: cfg.BlockingDefault, BlockingTimeout: cfg.BlockingTimeout, PushNotifications: cfg.Push.Enabled, LeaseDuration: cfg.LeaseDuration,
		IdempotencyWindow: cfg.IdempotencyWindow, NoIdempotency: cfg.IdempotencyWindow == 0, MaxParts: cfg.MaxParts}
}

// Executor is the executor part of the configuration, with the files fs
// keeps.
func Executor(cfg config.Config, clk clock.Clock, log *slog.Logger, fs engine.Files) engine.Options {
	return engine.Options{Clock: clk, Logger: log, InterruptTTL: cfg.InterruptTTL, InterruptTombstoneTTL: cfg.InterruptTombstoneTTL,
		LeaseDuration: cfg.LeaseDuration, MaxTakeovers: cfg.MaxTakeovers, Files: fs}
}

// itemRoom is what a message or an artifact keeps, below the task store's
// limit, for its fields other than its parts.
const itemRoom = 16 << 10

// Files is the files part of the configuration, kept in objects (nil: no
// store). Agents fetch https files under the push notifications' egress
// policy.
func Files(cfg config.Config, objects objectstore.Store, clk clock.Clock, log *slog.Logger) *files.Files {
	return files.New(files.Options{Store: objects, InlineLimit: cfg.Files.InlineLimit, URLTTL: cfg.Files.URLTTL, MaxUploadBytes: cfg.Files.MaxUploadBytes,
		MaxInline: store.MaxContentBytes - itemRoom, Egress: egress.Policy{AllowInsecure: cfg.Push.AllowInsecure}, Clock: clk, Logger: log})
}

// BucketFiles is Files kept in the S3 bucket A2A_FILES_BUCKET names,
// reached with awsCfg, or in no store when none is named (a Lambda
// function without a bucket keeps parts inline).
func BucketFiles(cfg config.Config, awsCfg aws.Config, clk clock.Clock, log *slog.Logger) (*files.Files, error) {
	if cfg.Files.Bucket == "" {
		return Files(cfg, nil, clk, log), nil
	}
	b, err := Bucket(cfg, awsCfg)
	if err != nil {
		return nil, err
	}
	return Files(cfg, b, clk, log), nil
}

// Bucket is the store of the S3 bucket A2A_FILES_BUCKET names.
func Bucket(cfg config.Config, awsCfg aws.Config) (*s3store.Store, error) {
	return s3store.New(awsCfg, cfg.Files.Bucket, s3store.Options{})
}
