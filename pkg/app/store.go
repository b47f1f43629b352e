package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// StoreOptions are the collaborators of a task store that tests replace.
type StoreOptions struct {
	Clock clock.Clock
	Log   *slog.Logger
	// OnUsage receives the capacity of every DynamoDB request.
	OnUsage func(dynamo.Usage)
	// AWS is the AWS configuration when the caller loaded it already (a
	// function that also needs other clients); nil makes it from the
	// environment (EnvAWS).
	AWS *aws.Config
}

// AWSLoader makes the AWS configuration of cfg.
type AWSLoader func(ctx context.Context, cfg config.Config) (aws.Config, error)

// EnvAWS is the AWSLoader of the Lambda functions (boot.AWSConfig): the
// region, endpoint and credentials of the process's environment.
func EnvAWS(_ context.Context, cfg config.Config) (aws.Config, error) {
	return boot.AWSConfig(cfg, os.Getenv)
}

// OpenTaskStore returns the task store cfg names: in memory, or on
// DynamoDB (see OpenDynamoStore).
func OpenTaskStore(ctx context.Context, cfg config.Config, o StoreOptions) (service.Store, error) {
	if cfg.TaskStore.Backend == config.BackendDynamoDB {
		return OpenDynamoStore(ctx, cfg, o)
	}
	return memory.New(memory.Options{Clock: o.Clock, TaskTTL: cfg.TaskStore.TTL, MaxTasks: cfg.TaskStore.MaxTasks}), nil
}

// OpenDynamoStore returns the DynamoDB store of cfg's table, reached with
// o.AWS, or the environment's AWS configuration (EnvAWS: credentials from
// the environment, as Lambda sets them) in AWS_REGION, or at
// AWS_ENDPOINT_URL when it is set. With
// A2A_TASK_STORE_CREATE_TABLE it first creates the table if it is missing.
func OpenDynamoStore(ctx context.Context, cfg config.Config, o StoreOptions) (*dynamo.Store, error) {
	if o.AWS == nil {
		awsCfg, err := EnvAWS(ctx, cfg)
		if err != nil {
			return nil, err
		}
		o.AWS = &awsCfg
	}
	client := dynamodb.NewFromConfig(*o.AWS)
	if cfg.TaskStore.CreateTable {
		if err := dynamo.CreateTable(ctx, client, cfg.TaskStore.Table); err != nil {
			return nil, fmt.Errorf("A2A_TASK_STORE_CREATE_TABLE: %w", err)
		}
	}
	if o.Log != nil {
		o.Log.Info("tasks are kept in DynamoDB", "table", cfg.TaskStore.Table, "region", cfg.AWS.Region, "endpoint", cfg.AWS.EndpointURL)
	}
	if sink := metrics.From(ctx); o.OnUsage == nil && sink != nil {
		// The capacity of every request, as EMF metrics by operation.
		o.OnUsage = func(u dynamo.Usage) { sink.Capacity(u.Op, u.Units, u.Read, u.Write) }
	}
	return dynamo.New(client, dynamo.Options{
		Table: cfg.TaskStore.Table, Clock: o.Clock, TaskTTL: cfg.TaskStore.TTL, OnUsage: o.OnUsage, Logger: o.Log,
	})
}

// DynamoChanges returns the change source of cfg's table for the local
// server: its stream, followed from the moment the server starts (see
// dynamo.Follow).
func DynamoChanges(ctx context.Context, cfg config.Config, awsCfg aws.Config, log *slog.Logger) (ChangeSource, error) {
	out, err := dynamodb.NewFromConfig(awsCfg).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(cfg.TaskStore.Table)})
	if err != nil {
		return nil, fmt.Errorf("describe table %s: %w", cfg.TaskStore.Table, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" {
		return nil, fmt.Errorf("table %s has no stream: push notifications need one (NEW_AND_OLD_IMAGES)", cfg.TaskStore.Table)
	}
	streams := dynamodbstreams.NewFromConfig(awsCfg)
	return func(ctx context.Context, fn func(service.TaskChange)) { dynamo.Follow(ctx, streams, arn, fn, log) }, nil
}
