package dynamo_test

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/internal/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// newTable creates a table of its own for the test and drops it afterwards.
func newTable(t *testing.T, client *dynamodb.Client) string {
	t.Helper()
	name := awstest.UniqueName(t, "tasks")
	require.NoError(t, dynamo.CreateTable(context.Background(), client, name))
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

func newStore(t *testing.T, o storetest.Options) *dynamo.Store {
	t.Helper()
	client := awstest.DynamoDB(t)
	s, err := dynamo.New(client, dynamo.Options{Table: newTable(t, client), Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
	require.NoError(t, err)
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, o storetest.Options) service.Store { return newStore(t, o) })
}

// TestChanges reads the table's stream with GetRecords and turns its
// records into changes with dynamo.ChangeFromStream, as the push function
// does.
func TestChanges(t *testing.T) {
	storetest.RunChanges(t, func(t *testing.T, o storetest.Options) (service.Store, func() []service.TaskChange) {
		client := awstest.DynamoDB(t)
		table := newTable(t, client)
		s, err := dynamo.New(client, dynamo.Options{Table: table, Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
		require.NoError(t, err)
		stream := awstest.NewStreamReader(t, table)
		return s, func() []service.TaskChange {
			recs, err := stream.Read(context.Background())
			require.NoError(t, err)
			var changes []service.TaskChange
			for _, r := range recs {
				c, err := dynamo.ChangeFromStream(r)
				require.NoError(t, err)
				if c != nil {
					changes = append(changes, *c)
				}
			}
			return changes
		}
	})
}
