// Package pushfn assembles the push function, on the task table's DynamoDB
// stream: it turns the task changes webhooks are told about into delivery
// jobs on the delivery queue. It calls SQS through pkg/internal/sqscall,
// decodes the stream's records with the DynamoDB store, and links no
// package of an AWS SDK service client; a test in functions/ holds the
// binary to that.
package pushfn

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
)

// New builds the push function's handler (the table's stream to the
// delivery queue) from the environment read through getenv (see
// boot.Start). Call it once per cold start.
func New(ctx context.Context, getenv func(string) string, logOut io.Writer) (*serverless.Fanout, error) {
	env, err := boot.Start(ctx, getenv, logOut, func(cfg config.Config) error {
		var errs []error
		if cfg.Push.DeliveryQueueURL == "" {
			errs = append(errs, errors.New("A2A_PUSH_DELIVERY_QUEUE_URL is required: the push function sends delivery jobs to that queue"))
		}
		if cfg.Push.StreamDeadLetterQueueURL == "" {
			errs = append(errs, errors.New("A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL is required: the push function sends the stream records that can never become jobs there, so that their shard moves on"))
		}
		return errors.Join(errs...)
	})
	if err != nil {
		return nil, err
	}
	awsCfg, err := boot.AWSConfig(env.Config, env.Getenv)
	if err != nil {
		return nil, err
	}
	client, err := sqscall.New(awsCfg, sqscall.Options{})
	if err != nil {
		return nil, err
	}
	return NewFanout(env.Config, client, env.Log)
}

// NewFanout assembles the push function around its queue client: the
// stream's records decoded as the DynamoDB store writes them, each
// record's jobs in the trace of its task's change, the job of each
// delivery a redrive queued enqueued again, and the records that can
// never become jobs dead-lettered to A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL.
func NewFanout(cfg config.Config, client serverless.SQS, log *slog.Logger) (*serverless.Fanout, error) {
	f, err := serverless.NewFanout(client, cfg.Push.DeliveryQueueURL, dynamo.ChangeFromStream, log)
	if err != nil {
		return nil, err
	}
	return f.WithTrace(dynamo.TraceFromStream).WithRedrive(dynamo.RedriveFromStream).WithDeadLetter(cfg.Push.StreamDeadLetterQueueURL), nil
}

// Function builds the push function's Lambda handler (New).
func Function(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
	h, err := New(ctx, getenv, logOut)
	if err != nil {
		return nil, err
	}
	return h.Handle, nil
}
