// Package deliverfn assembles the deliver function, on the push delivery
// queue: it POSTs each job's signed notification to its webhook and
// records the outcome on the push config. It calls SQS through
// pkg/internal/sqscall and DynamoDB through pkg/dynamodb, and links no
// package of an AWS SDK service client; a test in functions/ holds the
// binary to that.
package deliverfn

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
)

// New builds the deliver function's handler (the delivery queue to the
// webhooks) from the environment read through getenv (see boot.Start; the
// signing keys may be secret references). Call it once per cold start.
func New(ctx context.Context, getenv func(string) string, logOut io.Writer) (*serverless.Deliver, error) {
	env, err := boot.Start(ctx, getenv, logOut, func(cfg config.Config) error {
		return errors.Join(boot.CheckLambdaStore(cfg), checkConfig(cfg))
	})
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	ks, err := boot.PushKeys(cfg, false, env.Log)
	if err != nil {
		return nil, err
	}
	fn, err := setup.ForFunction(ctx, env)
	if err != nil {
		return nil, err
	}
	d, err := setup.NewDeliverer(cfg, ks, setup.PushIssuer(cfg, false), nil)
	if err != nil {
		return nil, err
	}
	client, err := sqscall.New(fn.AWS, sqscall.Options{})
	if err != nil {
		return nil, err
	}
	return NewDeliver(cfg, fn.Store, client, d, fn.Files, env.Log)
}

// Function builds the deliver function's Lambda handler (New).
func Function(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
	h, err := New(ctx, getenv, logOut)
	if err != nil {
		return nil, err
	}
	return h.Handle, nil
}

// checkConfig refuses a deliver function without its queues or an issuer.
func checkConfig(cfg config.Config) error {
	var errs []error
	if cfg.Push.DeliveryQueueURL == "" || cfg.Push.DeadLetterQueueURL == "" {
		errs = append(errs, errors.New("A2A_PUSH_DELIVERY_QUEUE_URL and A2A_PUSH_DEAD_LETTER_QUEUE_URL are required: the deliver function schedules retries on the first and dead-letters to the second"))
	}
	if setup.PushIssuer(cfg, false) == "" {
		errs = append(errs, errors.New("A2A_PUSH_ISSUER (or A2A_PUBLIC_URL) is required: it is the iss claim receivers check"))
	}
	return errors.Join(errs...)
}

// NewDeliver assembles the deliver function around its store, queue client
// and deliverer; the notifications name the files fs keeps by presigned
// URLs (nil: no files are kept).
func NewDeliver(cfg config.Config, store notify.Store, client serverless.SQS, d notify.Deliverer, fs *files.Files, log *slog.Logger) (*serverless.Deliver, error) {
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	sender := notify.NewSender(setup.PushResolver(store, fs), d, setup.PushRetry(cfg), store, log)
	return serverless.NewDeliver(sender, client, cfg.Push.DeliveryQueueURL, cfg.Push.DeadLetterQueueURL, log)
}
