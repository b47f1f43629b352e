package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// TableAPI is the part of the DynamoDB client CreateTable uses;
// *dynamodb.Client implements it.
type TableAPI interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput) (*dynamodb.DescribeTimeToLiveOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// CreateTable creates the store's table as the deployment template does:
// on-demand capacity, the byOwner, byContext and byLease indexes, TTL on expiresAt,
// and a stream of new and old images (push notifications read it). An
// existing table of that name is kept as it is, except that TTL is turned
// on when it is off. CreateTable waits until the table is active.
func CreateTable(ctx context.Context, api TableAPI, name string) error {
	_, err := api.CreateTable(ctx, TableInput(name))
	var inUse *dynamodb.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamo: create table %s: %w", name, err)
	}
	return waitAndEnableTTL(ctx, api, name)
}

// TTLAttribute is the table's TTL attribute (epoch seconds), on every item.
const TTLAttribute = attrExpiresAt

// leaseProjection is what the byLease index keeps of a task: what a sweep
// needs to decide, without reading the task (see lease.go).
var leaseProjection = &dynamodb.Projection{ProjectionType: dynamodb.ProjectionTypeInclude,
	NonKeyAttributes: []string{attrState, attrExpiresAt, attrLeaseOwner, attrLeaseTrigger, attrTakeovers}}

// TableInput is the definition of the store's table: keys, the byOwner and
// byContext indexes, on-demand capacity and the stream. The deployment
// template (template.yaml) declares the same table; a test holds the two
// together.
func TableInput(name string) *dynamodb.CreateTableInput {
	s := func(n string) dynamodb.AttributeDefinition {
		return dynamodb.AttributeDefinition{AttributeName: aws.String(n), AttributeType: dynamodb.ScalarAttributeTypeS}
	}
	keys := func(pk, sk string) []dynamodb.KeySchemaElement {
		return []dynamodb.KeySchemaElement{
			{AttributeName: aws.String(pk), KeyType: dynamodb.KeyTypeHash},
			{AttributeName: aws.String(sk), KeyType: dynamodb.KeyTypeRange},
		}
	}
	projection := &dynamodb.Projection{ProjectionType: dynamodb.ProjectionTypeInclude, NonKeyAttributes: []string{attrState, attrExpiresAt}}
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: dynamodb.BillingModePayPerRequest,
		AttributeDefinitions: []dynamodb.AttributeDefinition{s(attrPK), s(attrSK), s(attrListOwner), s(attrListContext), s(attrListSK), s(attrLeaseShard),
			{AttributeName: aws.String(attrLeaseUntil), AttributeType: dynamodb.ScalarAttributeTypeN}},
		KeySchema: keys(attrPK, attrSK),
		GlobalSecondaryIndexes: []dynamodb.GlobalSecondaryIndex{
			{IndexName: aws.String(indexByOwner), KeySchema: keys(attrListOwner, attrListSK), Projection: projection},
			{IndexName: aws.String(indexByContext), KeySchema: keys(attrListContext, attrListSK), Projection: projection},
			{IndexName: aws.String(indexByLease), KeySchema: keys(attrLeaseShard, attrLeaseUntil), Projection: leaseProjection},
		},
		StreamSpecification: &dynamodb.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: dynamodb.StreamViewTypeNewAndOldImages},
	}
}

// waitAndEnableTTL waits until the table is active and turns TTL on when it
// is off.
func waitAndEnableTTL(ctx context.Context, api TableAPI, name string) error {
	if err := waitActive(ctx, api, name, 5*time.Minute); err != nil {
		return fmt.Errorf("dynamo: wait for table %s: %w", name, err)
	}
	ttl, err := api.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("dynamo: describe TTL of table %s: %w", name, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == dynamodb.TimeToLiveStatusEnabled || d.TimeToLiveStatus == dynamodb.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &dynamodb.TimeToLiveSpecification{AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("dynamo: turn on TTL of table %s: %w", name, err)
	}
	return nil
}

// waitActive asks every second, for at most limit, until the table is
// active (a table just created may not be found yet).
func waitActive(ctx context.Context, api TableAPI, name string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var missing *dynamodb.ResourceNotFoundException
		switch {
		case err == nil && out.Table != nil && out.Table.TableStatus == dynamodb.TableStatusActive:
			return nil
		case err != nil && !errors.As(err, &missing):
			return err
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("not active after %s: %w", limit, ctx.Err())
		case <-t.C:
		}
	}
}
