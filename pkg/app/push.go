package app

import (
	"context"
	"errors"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
)

// NewPushFunction builds the push function's handler (the table's stream
// to the delivery queue) from the environment read through getenv (see
// boot.Start). Call it once per cold start.
func NewPushFunction(ctx context.Context, getenv func(string) string, logOut io.Writer) (*serverless.Fanout, error) {
	env, err := boot.Start(ctx, getenv, logOut, func(cfg config.Config) error {
		if cfg.Push.DeliveryQueueURL == "" {
			return errors.New("A2A_PUSH_DELIVERY_QUEUE_URL is required: the push function sends delivery jobs to that queue")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	awsCfg, err := boot.AWSConfig(env.Config, env.Getenv)
	if err != nil {
		return nil, err
	}
	return serverless.NewFanout(sqs.NewFromConfig(awsCfg), env.Config.Push.DeliveryQueueURL, dynamo.ChangeFromStream, env.Log)
}

// PushFunction builds the push function's Lambda handler
// (NewPushFunction).
func PushFunction(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
	h, err := NewPushFunction(ctx, getenv, logOut)
	if err != nil {
		return nil, err
	}
	return h.Handle, nil
}
