package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
)

// StoreOptions are the collaborators of a task store that tests replace.
type StoreOptions struct {
	Log *slog.Logger
	// OnUsage receives the capacity of every DynamoDB request.
	OnUsage func(dynamo.Usage)
	// AWS is the AWS configuration when the caller loaded it already (a
	// function that also needs other clients); nil makes it from the
	// process's environment (startup.AWSConfig).
	AWS *aws.Config
}

// OpenDynamo returns the DynamoDB store of cfg's table, reached with
// o.AWS, or the environment's AWS configuration (startup.AWSConfig:
// credentials from the environment, as Lambda sets them) in AWS_REGION, or
// at AWS_ENDPOINT_URL when it is set. With A2A_TASK_STORE_CREATE_TABLE
// (local development) it first creates the table if it is missing.
func OpenDynamo(ctx context.Context, cfg config.Config, o StoreOptions) (*dynamo.Store, error) {
	if o.AWS == nil {
		awsCfg, err := startup.AWSConfig(cfg, os.Getenv)
		if err != nil {
			return nil, err
		}
		o.AWS = &awsCfg
	}
	client, err := dynamodb.New(*o.AWS, dynamodb.Options{})
	if err != nil {
		return nil, err
	}
	if cfg.TaskStore.CreateTable {
		if err := dynamo.CreateTable(ctx, client, cfg.TaskStore.Table); err != nil {
			return nil, fmt.Errorf("A2A_TASK_STORE_CREATE_TABLE: %w", err)
		}
	}
	return open(ctx, cfg, client, o)
}

// ForFunction opens, for a Lambda function started as env, what it
// reaches in AWS: its AWS configuration, built from the environment Lambda
// provides (startup.AWSConfig), the DynamoDB store of its table and the files
// bucket (BucketFiles), both reached with it. It refuses
// A2A_TASK_STORE_CREATE_TABLE: the stack creates the functions' table, and
// a function that never creates one does not link the code that does
// (table creation and its waiter), which would weigh on its binary.
func ForFunction(ctx context.Context, env startup.Env) (Function, error) {
	if env.Config.TaskStore.CreateTable {
		return Function{}, errors.New("A2A_TASK_STORE_CREATE_TABLE=true is for the local server: a Lambda function does not create its table (the stack does; for sam local, create it first, e.g. with the local server: A2A_TASK_STORE_BACKEND=dynamodb A2A_TASK_STORE_CREATE_TABLE=true AWS_ENDPOINT_URL=... make run; see docs/deploy.md, \"Try it locally with sam local\")")
	}
	awsCfg, err := startup.AWSConfig(env.Config, env.Getenv)
	if err != nil {
		return Function{}, err
	}
	client, err := dynamodb.New(awsCfg, dynamodb.Options{})
	if err != nil {
		return Function{}, err
	}
	store, err := open(ctx, env.Config, client, StoreOptions{Log: env.Log})
	if err != nil {
		return Function{}, err
	}
	fs, err := BucketFiles(env.Config, awsCfg, nil, env.Log)
	if err != nil {
		return Function{}, err
	}
	return Function{Env: env, Store: store, AWS: awsCfg, Files: fs}, nil
}

// Function is what a Lambda function that keeps tasks opens at its cold
// start.
type Function struct {
	startup.Env
	// Agent is the agent A2A_AGENT names (StartFunction; nil from
	// ForFunction).
	Agent agent.Agent
	Store *dynamo.Store
	// AWS is the configuration the store's client was made with, for the
	// function's other clients.
	AWS aws.Config
	// Files keeps large parts in the bucket A2A_FILES_BUCKET names (nil
	// without one: see BucketFiles).
	Files *files.Files
}

// StartFunction starts a Lambda function (startup.Start, with checks), builds
// the agent A2A_AGENT names from reg, and opens the store and the files
// bucket (ForFunction).
func StartFunction(ctx context.Context, getenv func(string) string, logOut io.Writer, reg *agent.Registry, checks ...func(config.Config) error) (Function, error) {
	env, err := startup.Start(ctx, getenv, logOut, checks...)
	if err != nil {
		return Function{}, err
	}
	ag, err := env.Agent(reg)
	if err != nil {
		return Function{}, err
	}
	fn, err := ForFunction(ctx, env)
	if err != nil {
		return Function{}, err
	}
	fn.Agent = ag
	return fn, nil
}

// open returns the store of cfg's table on client.
func open(ctx context.Context, cfg config.Config, client *dynamodb.Client, o StoreOptions) (*dynamo.Store, error) {
	if o.Log != nil {
		o.Log.Info("tasks are kept in DynamoDB", "table", cfg.TaskStore.Table, "region", cfg.AWS.Region, "endpoint", cfg.AWS.EndpointURL)
	}
	if sink := metrics.From(ctx); o.OnUsage == nil && sink.RecordsCapacity() {
		// The capacity of every request, as EMF metrics by operation
		// (A2A_METRICS_DYNAMODB).
		o.OnUsage = func(u dynamo.Usage) { sink.Capacity(u.Op, u.Units, u.Read, u.Write) }
	}
	return dynamo.New(client, DynamoOptions(cfg, o))
}

// DynamoOptions are the options of the DynamoDB store of cfg's table.
func DynamoOptions(cfg config.Config, o StoreOptions) dynamo.Options {
	return dynamo.Options{Table: cfg.TaskStore.Table, TaskTTL: cfg.TaskStore.TTL, IdempotencyTTL: cfg.IdempotencyWindow, OnUsage: o.OnUsage, Logger: o.Log}
}
