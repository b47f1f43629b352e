package dynamocost_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/dynamocost"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

type av = dynamodb.AttributeValue

func s(v string) av { return &dynamodb.AttributeValueMemberS{Value: v} }
func n(v string) av { return &dynamodb.AttributeValueMemberN{Value: v} }

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		item map[string]av
		want int
	}{
		{"string", map[string]av{"name": s("abc")}, 4 + 3},
		{"number", map[string]av{"n": n("12345")}, 1 + 3 + 1},
		{"number with zeros and sign", map[string]av{"n": n("-0.00120")}, 1 + 1 + 1},
		{"binary", map[string]av{"b": &dynamodb.AttributeValueMemberB{Value: []byte{1, 2, 3}}}, 1 + 3},
		{"bool", map[string]av{"ok": &dynamodb.AttributeValueMemberBOOL{Value: true}}, 2 + 1},
		{"list", map[string]av{"l": &dynamodb.AttributeValueMemberL{Value: []av{s("ab"), s("c")}}}, 1 + 3 + (1 + 2) + (1 + 1)},
		{"map", map[string]av{"m": &dynamodb.AttributeValueMemberM{Value: map[string]av{"k": s("vv")}}}, 1 + 3 + (1 + 1 + 2)},
		{"string set", map[string]av{"ss": &dynamodb.AttributeValueMemberSS{Value: []string{"ab", "c"}}}, 2 + 2 + 1},
		{"number set", map[string]av{"ns": &dynamodb.AttributeValueMemberNS{Value: []string{"12", "345"}}}, 2 + 2 + 3},
		{"binary set", map[string]av{"bs": &dynamodb.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}}, 2 + 1 + 2},
	} {
		assert.Equal(t, tc.want, dynamocost.Size(tc.item), tc.name)
	}
}

// The meter charges per DynamoDB's rules: transactional writes twice, 1 KB
// write units and 4 KB read units, index entries as they change.
func TestMeter(t *testing.T) {
	ctx := context.Background()
	client := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "cost")
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: dynamodb.BillingModePayPerRequest,
		AttributeDefinitions: []dynamodb.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: dynamodb.ScalarAttributeTypeS},
			{AttributeName: aws.String("G"), AttributeType: dynamodb.ScalarAttributeTypeS},
		},
		KeySchema: []dynamodb.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: dynamodb.KeyTypeHash}},
		GlobalSecondaryIndexes: []dynamodb.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"), KeySchema: []dynamodb.KeySchemaElement{{AttributeName: aws.String("G"), KeyType: dynamodb.KeyTypeHash}},
			Projection: &dynamodb.Projection{ProjectionType: dynamodb.ProjectionTypeKeysOnly},
		}},
	})
	require.NoError(t, err)
	m, err := dynamocost.New(ctx, client, table)
	require.NoError(t, err)

	big := strings.Repeat("x", 1500) // a 2 KB item
	_, err = m.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []dynamodb.TransactWriteItem{
		{Put: &dynamodb.Put{TableName: aws.String(table), Item: map[string]av{"PK": s("a"), "G": s("g1"), "data": s(big)}}},
		{Put: &dynamodb.Put{TableName: aws.String(table), Item: map[string]av{"PK": s("b")}}},
	}})
	require.NoError(t, err)
	c := m.Counts()
	assert.Equal(t, map[string]int{"TransactWriteItems": 1}, c.Requests)
	assert.Equal(t, 2*2.0+2*1.0+1, c.Write, "2 KB and 1 KB items, twice, and one new index entry")
	assert.Equal(t, 1.0, c.IndexWrite)

	m.Reset()
	_, err = m.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]av{"PK": s("a")},
		UpdateExpression: aws.String("SET G = :g"), ExpressionAttributeValues: map[string]av{":g": s("g2")}})
	require.NoError(t, err)
	assert.Equal(t, 2.0+2.0, m.Counts().Write, "a 2 KB item, and an index entry moved (delete and put)")

	m.Reset()
	_, err = m.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]av{"PK": s("a")}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	_, err = m.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]av{"PK": s("b")}})
	require.NoError(t, err)
	_, err = m.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("G = :g"), ExpressionAttributeValues: map[string]av{":g": s("g2")}})
	require.NoError(t, err)
	c = m.Counts()
	assert.Equal(t, 1.0+0.5+0.5, c.Read, "strong read, eventual read, index query")
	assert.Equal(t, 3, c.Total())
	assert.Equal(t, "2×GetItem, 1×Query", c.Ops())
}
