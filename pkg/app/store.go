package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/secrets"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// StoreOptions are the collaborators of a task store that tests replace.
type StoreOptions struct {
	Clock service.Clock
	Log   *slog.Logger
	// OnUsage receives the capacity of every DynamoDB request.
	OnUsage func(dynamo.Usage)
}

// AWSConfig is the default AWS configuration (credentials from the
// environment or the Lambda role) in AWS_REGION, pointed at AWS_ENDPOINT_URL
// when it is set (a local stand-in).
func AWSConfig(ctx context.Context, cfg config.Config) (aws.Config, error) {
	return awsConfig(ctx, cfg.AWS)
}

func awsConfig(ctx context.Context, a config.AWS) (aws.Config, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(a.Region))
	if err != nil {
		return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
	}
	if a.EndpointURL != "" {
		awsCfg.BaseEndpoint = aws.String(a.EndpointURL)
	}
	return awsCfg, nil
}

// ResolveSecrets returns getenv with the secret references among
// config.SecretVariables resolved (ssm:<name>, secretsmanager:<name or
// ARN>; see pkg/secrets), read once with the default AWS configuration in
// AWS_REGION (or at AWS_ENDPOINT_URL). Without references it returns getenv
// itself and builds no AWS client. Errors name the variable, never a value.
func ResolveSecrets(ctx context.Context, getenv func(string) string) (func(string) string, error) {
	names := config.SecretVariables()
	if !secrets.References(getenv, names) {
		return getenv, nil
	}
	awsCfg, err := awsConfig(ctx, config.AWS{
		Region:      cmp.Or(strings.TrimSpace(getenv("AWS_REGION")), strings.TrimSpace(getenv("AWS_DEFAULT_REGION"))),
		EndpointURL: strings.TrimSpace(getenv("AWS_ENDPOINT_URL")),
	})
	if err != nil {
		return nil, fmt.Errorf("secret references: %w", err)
	}
	r := secrets.Resolver{SSM: ssm.NewFromConfig(awsCfg), SecretsManager: secretsmanager.NewFromConfig(awsCfg)}
	resolved, err := r.Env(ctx, getenv, names)
	if err != nil {
		return nil, fmt.Errorf("secret references: %w", err)
	}
	return resolved, nil
}

// OpenTaskStore returns the task store cfg names: in memory, or on
// DynamoDB (see OpenDynamoStore).
func OpenTaskStore(ctx context.Context, cfg config.Config, o StoreOptions) (service.Store, error) {
	if cfg.TaskStore.Backend == config.BackendDynamoDB {
		return OpenDynamoStore(ctx, cfg, o)
	}
	return memory.New(memory.Options{Clock: o.Clock, TaskTTL: cfg.TaskStore.TTL}), nil
}

// OpenDynamoStore returns the DynamoDB store of cfg's table, reached with
// the default AWS configuration (credentials from the environment or the
// Lambda role) in AWS_REGION, or at AWS_ENDPOINT_URL when it is set. With
// A2A_TASK_STORE_CREATE_TABLE it first creates the table if it is missing.
func OpenDynamoStore(ctx context.Context, cfg config.Config, o StoreOptions) (*dynamo.Store, error) {
	awsCfg, err := AWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	client := dynamodb.NewFromConfig(awsCfg)
	if cfg.TaskStore.CreateTable {
		if err := dynamo.CreateTable(ctx, client, cfg.TaskStore.Table); err != nil {
			return nil, fmt.Errorf("A2A_TASK_STORE_CREATE_TABLE: %w", err)
		}
	}
	if o.Log != nil {
		o.Log.Info("tasks are kept in DynamoDB", "table", cfg.TaskStore.Table, "region", cfg.AWS.Region, "endpoint", cfg.AWS.EndpointURL)
	}
	return dynamo.New(client, dynamo.Options{
		Table: cfg.TaskStore.Table, Clock: o.Clock, TaskTTL: cfg.TaskStore.TTL, OnUsage: o.OnUsage, Logger: o.Log,
	})
}
