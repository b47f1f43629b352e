package dynamodb_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	sdk "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	sdktypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// taskQuery is the answer of a tasks/get Query of a task with 10 history
// messages, shaped as the store's items are.
func taskQuery() string {
	items := []string{`{"PK":{"S":"T#0190f5c2-7d4e-7a1b-9c3d-5e6f7a8b9c0d"},"SK":{"S":"H"},"owner":{"S":"alice"},"contextId":{"S":"ctx-1"},` +
		`"state":{"S":"completed"},"status":{"S":"{\"state\":\"completed\",\"timestamp\":\"2026-11-27T05:00:00Z\"}"},"version":{"N":"12"},` +
		`"createdAt":{"N":"1795755600000000000"},"updatedAt":{"N":"1795755601000000000"},"expiresAt":{"N":"1798347600"},` +
		`"childrenExpireAt":{"N":"1800939600"},"listOwner":{"S":"O#alice"},"listContext":{"S":"C#alice#ctx-1"},"listSK":{"S":"1795755601000000000#t"},` +
		`"pushConfigs":{"SS":["c1","c2"]},"fp":{"S":"f0e1d2c3"}}`}
	for i := range 10 {
		items = append(items, fmt.Sprintf(`{"PK":{"S":"T#0190f5c2-7d4e-7a1b-9c3d-5e6f7a8b9c0d"},"SK":{"S":"H#%010d#000"},"data":{"S":"{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m-%d\",\"parts\":[{\"kind\":\"text\",\"text\":\"hello there, this is message %d\"}]}"},"expiresAt":{"N":"1800939600"}}`, 9999999999-i, i, i))
	}
	return `{"Count":11,"ScannedCount":11,"Items":[` + strings.Join(items, ",") + `],"ConsumedCapacity":{"TableName":"tasks","CapacityUnits":1}}`
}

func server(b *testing.B, body string) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		io.WriteString(w, body)
	}))
	b.Cleanup(hs.Close)
	return hs.URL
}

func config(url string) aws.Config {
	return aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), BaseEndpoint: aws.String(url)}
}

// The store's hottest read, a task's Query, through this client and
// through the SDK's, against the same canned answer over HTTP.
func BenchmarkQueryTask(b *testing.B) {
	url := server(b, taskQuery())
	ctx := context.Background()
	b.Run("pkg-dynamodb", func(b *testing.B) {
		c, err := dynamodb.New(config(url), dynamodb.Options{})
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tasks"), KeyConditionExpression: aws.String("#PK = :v0"),
				ExpressionAttributeNames: map[string]string{"#PK": "PK"}, ExpressionAttributeValues: map[string]dynamodb.AttributeValue{":v0": s("T#1")},
				ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: dynamodb.ReturnConsumedCapacityTotal})
			if err != nil || len(out.Items) != 11 {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		c := sdk.NewFromConfig(config(url))
		b.ReportAllocs()
		for b.Loop() {
			out, err := c.Query(ctx, &sdk.QueryInput{TableName: aws.String("tasks"), KeyConditionExpression: aws.String("#PK = :v0"),
				ExpressionAttributeNames: map[string]string{"#PK": "PK"}, ExpressionAttributeValues: map[string]sdktypes.AttributeValue{":v0": &sdktypes.AttributeValueMemberS{Value: "T#1"}},
				ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: sdktypes.ReturnConsumedCapacityTotal})
			if err != nil || len(out.Items) != 11 {
				b.Fatal(err)
			}
		}
	})
}

// The blocking send's one request, a conditional PutItem of a task item.
func BenchmarkPutTask(b *testing.B) {
	url := server(b, `{"ConsumedCapacity":{"TableName":"tasks","CapacityUnits":3}}`)
	ctx := context.Background()
	item, err := dynamodb.DecodeItem([]byte(taskQuery()[strings.Index(taskQuery(), `[`)+1 : strings.Index(taskQuery(), `},{"PK"`)+1]))
	require.NoError(b, err)
	b.Run("pkg-dynamodb", func(b *testing.B) {
		c, err := dynamodb.New(config(url), dynamodb.Options{})
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: item, ConditionExpression: aws.String("attribute_not_exists (#PK)"),
				ExpressionAttributeNames: map[string]string{"#PK": "PK"}, ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
				ReturnConsumedCapacity: dynamodb.ReturnConsumedCapacityTotal})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		c := sdk.NewFromConfig(config(url))
		sdkItem := map[string]sdktypes.AttributeValue{}
		for k, v := range item {
			switch v := v.(type) {
			case *dynamodb.AttributeValueMemberS:
				sdkItem[k] = &sdktypes.AttributeValueMemberS{Value: v.Value}
			case *dynamodb.AttributeValueMemberN:
				sdkItem[k] = &sdktypes.AttributeValueMemberN{Value: v.Value}
			case *dynamodb.AttributeValueMemberSS:
				sdkItem[k] = &sdktypes.AttributeValueMemberSS{Value: v.Value}
			}
		}
		require.Len(b, sdkItem, len(item))
		b.ReportAllocs()
		for b.Loop() {
			_, err := c.PutItem(ctx, &sdk.PutItemInput{TableName: aws.String("tasks"), Item: sdkItem, ConditionExpression: aws.String("attribute_not_exists (#PK)"),
				ExpressionAttributeNames: map[string]string{"#PK": "PK"}, ReturnValuesOnConditionCheckFailure: sdktypes.ReturnValuesOnConditionCheckFailureAllOld,
				ReturnConsumedCapacity: sdktypes.ReturnConsumedCapacityTotal})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
