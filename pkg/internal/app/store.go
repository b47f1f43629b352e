package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/follow"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// StoreOptions are the collaborators of a task store that tests replace
// (setup.StoreOptions).
type StoreOptions = setup.StoreOptions

// AWSLoader makes the AWS configuration of cfg.
type AWSLoader func(ctx context.Context, cfg config.Config) (aws.Config, error)

// EnvAWS is the AWSLoader of the Lambda functions (startup.AWSConfig): the
// region, endpoint and credentials of the process's environment.
func EnvAWS(_ context.Context, cfg config.Config) (aws.Config, error) {
	return startup.AWSConfig(cfg, os.Getenv)
}

// OpenTaskStore returns the task store cfg names: in memory, or on
// DynamoDB (see OpenDynamoStore).
func OpenTaskStore(ctx context.Context, cfg config.Config, o StoreOptions) (store.Store, error) {
	if cfg.TaskStore.Backend == config.BackendDynamoDB {
		return OpenDynamoStore(ctx, cfg, o)
	}
	return memory.New(memoryOptions(cfg, nil)), nil
}

// memoryOptions are the options of cfg's in-memory task store.
func memoryOptions(cfg config.Config, clk clock.Clock) memory.Options {
	return memory.Options{Clock: clk, TaskTTL: cfg.TaskStore.TTL, IdempotencyTTL: cfg.IdempotencyWindow, MaxTasks: cfg.TaskStore.MaxTasks, MaxBytes: cfg.TaskStore.MaxBytes}
}

// OpenDynamoStore returns the DynamoDB store of cfg's table
// (setup.OpenDynamo).
func OpenDynamoStore(ctx context.Context, cfg config.Config, o StoreOptions) (*dynamo.Store, error) {
	return setup.OpenDynamo(ctx, cfg, o)
}

// DynamoChanges returns the change source of cfg's table for the local
// server: its stream, followed from the moment the server starts (see
// follow.Changes).
func DynamoChanges(ctx context.Context, cfg config.Config, awsCfg aws.Config, log *slog.Logger) (ChangeSource, error) {
	db, err := dynamodb.New(awsCfg, dynamodb.Options{})
	if err != nil {
		return nil, err
	}
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(cfg.TaskStore.Table)})
	if err != nil {
		return nil, fmt.Errorf("describe table %s: %w", cfg.TaskStore.Table, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" {
		return nil, fmt.Errorf("table %s has no stream: push notifications need one (NEW_AND_OLD_IMAGES)", cfg.TaskStore.Table)
	}
	streams, err := streamscall.New(awsCfg, streamscall.Options{})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, fn func(store.TaskChange), started func()) {
		follow.Changes(ctx, streams, arn, fn, follow.Options{Log: log, Started: started})
	}, nil
}
