package dynamodb_test

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// answer is one canned answer of a fake DynamoDB.
type answer struct {
	status int
	body   string
	// crc overrides the X-Amz-Crc32 header DynamoDB sends ("" sends the
	// body's).
	crc string
}

// fake serves answers in turn (the last one again when they run out) and
// records the requests.
type fake struct {
	calls    atomic.Int32
	requests []*http.Request
	bodies   []string
}

func newClient(t *testing.T, answers ...answer) (*dynamodb.Client, *fake) {
	t.Helper()
	f := &fake{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.requests = append(f.requests, r)
		f.bodies = append(f.bodies, string(b))
		a := answers[min(int(f.calls.Add(1))-1, len(answers)-1)]
		crc := a.crc
		if crc == "" {
			crc = strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(a.body))), 10)
		}
		w.Header().Set("X-Amz-Crc32", crc)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(hs.Close)
	cfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	c, err := dynamodb.New(cfg, dynamodb.Options{Endpoint: hs.URL, MaxBackoff: time.Millisecond})
	require.NoError(t, err)
	return c, f
}

// A request is a signed AWS JSON 1.0 call of its operation, its input in
// DynamoDB JSON; the answer's items decode into attribute values.
func TestQuery(t *testing.T) {
	c, f := newClient(t, answer{200, `{"Count":2,"ScannedCount":3,"Items":[{"PK":{"S":"T#1"},"v":{"N":"12.50"}},{"PK":{"S":"T#2"},"l":{"L":[{"BOOL":true}]}}],` +
		`"LastEvaluatedKey":{"PK":{"S":"T#2"}},"ConsumedCapacity":{"TableName":"tasks","CapacityUnits":1.5}}`, ""})
	out, err := c.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String("tasks"), KeyConditionExpression: aws.String("#PK = :v0"),
		ExpressionAttributeNames: map[string]string{"#PK": "PK"}, ExpressionAttributeValues: map[string]av{":v0": s("T#1")},
		ConsistentRead: aws.Bool(true), Limit: aws.Int32(2), ReturnConsumedCapacity: dynamodb.ReturnConsumedCapacityTotal,
	})
	require.NoError(t, err)
	assert.Equal(t, &dynamodb.QueryOutput{
		Items: []map[string]av{
			{"PK": s("T#1"), "v": n("12.50")},
			{"PK": s("T#2"), "l": &dynamodb.AttributeValueMemberL{Value: []av{&dynamodb.AttributeValueMemberBOOL{Value: true}}}},
		},
		Count: 2, ScannedCount: 3, LastEvaluatedKey: map[string]av{"PK": s("T#2")},
		ConsumedCapacity: &dynamodb.ConsumedCapacity{TableName: aws.String("tasks"), CapacityUnits: aws.Float64(1.5)},
	}, out)

	require.Len(t, f.requests, 1)
	r := f.requests[0]
	assert.Equal(t, "DynamoDB_20120810.Query", r.Header.Get("X-Amz-Target"))
	assert.Equal(t, "application/x-amz-json-1.0", r.Header.Get("Content-Type"))
	assert.Contains(t, r.Header.Get("Authorization"), "/eu-west-1/dynamodb/aws4_request")
	assert.JSONEq(t, `{"TableName":"tasks","KeyConditionExpression":"#PK = :v0","ExpressionAttributeNames":{"#PK":"PK"},
		"ExpressionAttributeValues":{":v0":{"S":"T#1"}},"ConsistentRead":true,"Limit":2,"ReturnConsumedCapacity":"TOTAL"}`, f.bodies[0])
}

// A transaction's items, their tables and conditions go as the API has
// them.
func TestTransactWriteItemsRequest(t *testing.T) {
	c, f := newClient(t, answer{200, `{"ConsumedCapacity":[{"TableName":"tasks","CapacityUnits":4,"WriteCapacityUnits":4}]}`, ""})
	out, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []dynamodb.TransactWriteItem{
		{Put: &dynamodb.Put{TableName: aws.String("tasks"), Item: map[string]av{"PK": s("a")}, ConditionExpression: aws.String("attribute_not_exists (#PK)"),
			ExpressionAttributeNames: map[string]string{"#PK": "PK"}, ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld}},
		{Update: &dynamodb.Update{TableName: aws.String("tasks"), Key: map[string]av{"PK": s("b")}, UpdateExpression: aws.String("ADD #n :v0"),
			ExpressionAttributeNames: map[string]string{"#n": "n"}, ExpressionAttributeValues: map[string]av{":v0": n("1")}}},
		{Delete: &dynamodb.Delete{TableName: aws.String("tasks"), Key: map[string]av{"PK": s("c")}}},
		{ConditionCheck: &dynamodb.ConditionCheck{TableName: aws.String("tasks"), Key: map[string]av{"PK": s("d")}, ConditionExpression: aws.String("attribute_exists (PK)")}},
	}, ReturnConsumedCapacity: dynamodb.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	assert.Equal(t, []dynamodb.ConsumedCapacity{{TableName: aws.String("tasks"), CapacityUnits: aws.Float64(4), WriteCapacityUnits: aws.Float64(4)}}, out.ConsumedCapacity)
	assert.JSONEq(t, `{"TransactItems":[
		{"Put":{"TableName":"tasks","Item":{"PK":{"S":"a"}},"ConditionExpression":"attribute_not_exists (#PK)","ExpressionAttributeNames":{"#PK":"PK"},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},
		{"Update":{"TableName":"tasks","Key":{"PK":{"S":"b"}},"UpdateExpression":"ADD #n :v0","ExpressionAttributeNames":{"#n":"n"},"ExpressionAttributeValues":{":v0":{"N":"1"}}}},
		{"Delete":{"TableName":"tasks","Key":{"PK":{"S":"c"}}}},
		{"ConditionCheck":{"TableName":"tasks","Key":{"PK":{"S":"d"}},"ConditionExpression":"attribute_exists (PK)"}}],
		"ReturnConsumedCapacity":"TOTAL"}`, f.bodies[0])
}

// BatchGetItem's answers and unprocessed keys decode by table.
func TestBatchGetItem(t *testing.T) {
	c, _ := newClient(t, answer{200, `{"Responses":{"tasks":[{"PK":{"S":"a"}}]},"UnprocessedKeys":{"tasks":{"Keys":[{"PK":{"S":"b"}}],"ConsistentRead":true}},` +
		`"ConsumedCapacity":[{"TableName":"tasks","CapacityUnits":1}]}`, ""})
	out, err := c.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: map[string]dynamodb.KeysAndAttributes{
		"tasks": {Keys: []map[string]av{{"PK": s("a")}, {"PK": s("b")}}, ConsistentRead: aws.Bool(true)}}})
	require.NoError(t, err)
	assert.Equal(t, map[string][]map[string]av{"tasks": {{"PK": s("a")}}}, out.Responses)
	assert.Equal(t, map[string]dynamodb.KeysAndAttributes{"tasks": {Keys: []map[string]av{{"PK": s("b")}}, ConsistentRead: aws.Bool(true)}}, out.UnprocessedKeys)
}

// Each refusal the store acts on is an error of its own type, with the
// item a failed condition returned and the reasons of a canceled
// transaction; others are a *dynamodb.Error with DynamoDB's code.
func TestRefusals(t *testing.T) {
	const ns = "com.amazonaws.dynamodb.v20120810#"
	tests := []struct {
		name string
		body string
		want error
	}{
		{"failed condition with the item", `{"__type":"` + ns + `ConditionalCheckFailedException","message":"The conditional request failed","Item":{"PK":{"S":"T#1"},"version":{"N":"4"}}}`,
			&dynamodb.ConditionalCheckFailedException{Message: "The conditional request failed", Item: map[string]av{"PK": s("T#1"), "version": n("4")}}},
		{"failed condition without an item", `{"__type":"` + ns + `ConditionalCheckFailedException","message":"The conditional request failed"}`,
			&dynamodb.ConditionalCheckFailedException{Message: "The conditional request failed"}},
		{"canceled transaction", `{"__type":"` + ns + `TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]",` +
			`"CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"The conditional request failed","Item":{"PK":{"S":"I#x"},"recordOf":{"S":"t1"}}}]}`,
			&dynamodb.TransactionCanceledException{Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]",
				CancellationReasons: []dynamodb.CancellationReason{{Code: aws.String("None")},
					{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed"), Item: map[string]av{"PK": s("I#x"), "recordOf": s("t1")}}}}},
		{"transaction conflict", `{"__type":"` + ns + `TransactionConflictException","message":"Transaction is ongoing for the item"}`,
			&dynamodb.TransactionConflictException{Message: "Transaction is ongoing for the item"}},
		{"table exists", `{"__type":"` + ns + `ResourceInUseException","message":"Table already exists: tasks"}`,
			&dynamodb.ResourceInUseException{Message: "Table already exists: tasks"}},
		{"no table", `{"__type":"` + ns + `ResourceNotFoundException","message":"Requested resource not found"}`,
			&dynamodb.ResourceNotFoundException{Message: "Requested resource not found"}},
		{"invalid", `{"__type":"` + ns + `ValidationException","message":"Item size has exceeded the maximum allowed size"}`,
			&dynamodb.Error{Code: "ValidationException", Message: "Item size has exceeded the maximum allowed size", StatusCode: 400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := newClient(t, answer{400, tt.body, ""})
			_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: map[string]av{"PK": s("T#1")}})
			assert.Equal(t, tt.want, err)
			assert.EqualValues(t, 1, f.calls.Load(), "a refusal is not tried again")
		})
	}
}

// Throttling, whatever DynamoDB calls it, and DynamoDB's own failures are
// tried again; what outlasts the attempts says so.
func TestThrottlingIsTriedAgain(t *testing.T) {
	ok := answer{200, `{"Attributes":{"PK":{"S":"a"}}}`, ""}
	for _, code := range []string{"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"} {
		t.Run(code, func(t *testing.T) {
			throttled := answer{400, `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"slow down"}`, ""}
			c, f := newClient(t, throttled, throttled, ok)
			out, err := c.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}, ReturnValues: dynamodb.ReturnValueAllOld})
			require.NoError(t, err)
			assert.Equal(t, map[string]av{"PK": s("a")}, out.Attributes)
			assert.EqualValues(t, 3, f.calls.Load())

			c, f = newClient(t, throttled)
			_, err = c.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
			var e *dynamodb.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, code, e.Code)
			assert.ErrorContains(t, err, "(after 3 attempts)")
			assert.EqualValues(t, 3, f.calls.Load())
		})
	}
	c, f := newClient(t, answer{500, `{"__type":"InternalServerError"}`, ""}, ok)
	_, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
	require.NoError(t, err)
	assert.EqualValues(t, 2, f.calls.Load())
}

// An answer whose body does not match its X-Amz-Crc32 is refused; one
// that matches, or has none, is read.
func TestAnswerCRC32(t *testing.T) {
	body := `{"Item":{"PK":{"S":"a"}}}`
	c, _ := newClient(t, answer{200, body, "12345"})
	_, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
	assert.ErrorContains(t, err, "dynamodb: GetItem: the answer's CRC32 is")

	c, _ = newClient(t, answer{200, body, "x"})
	_, err = c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
	assert.ErrorContains(t, err, `X-Amz-Crc32 "x" is not a number`)

	c, _ = newClient(t, answer{200, body, ""})
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
	require.NoError(t, err)
	assert.Equal(t, map[string]av{"PK": s("a")}, out.Item)
}

// An answer that is no DynamoDB JSON is an error, not a half-read item.
func TestMalformedAnswer(t *testing.T) {
	for _, body := range []string{`{"Items":[{"PK":{}}]}`, `<html>`, `{"Items":[{"a":{"S":"x","N":"1"}}]}`} {
		c, _ := newClient(t, answer{200, body, ""})
		_, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("t")})
		assert.ErrorContains(t, err, "dynamodb: Query: decode the answer", body)
	}
}

// The table operations decode their descriptions.
func TestDescribeTable(t *testing.T) {
	c, _ := newClient(t, answer{200, `{"Table":{"TableName":"tasks","TableStatus":"ACTIVE","CreationDateTime":1.7E9,"LatestStreamArn":"arn:s",` +
		`"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],"BillingModeSummary":{"BillingMode":"PAY_PER_REQUEST"},` +
		`"GlobalSecondaryIndexes":[{"IndexName":"byOwner","KeySchema":[{"AttributeName":"listOwner","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["state"]}}],` +
		`"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}}`, ""})
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("tasks")})
	require.NoError(t, err)
	tbl := out.Table
	assert.Equal(t, dynamodb.TableStatusActive, tbl.TableStatus)
	assert.Equal(t, "arn:s", aws.ToString(tbl.LatestStreamArn))
	assert.Equal(t, dynamodb.BillingModePayPerRequest, tbl.BillingModeSummary.BillingMode)
	assert.Equal(t, dynamodb.StreamViewTypeNewAndOldImages, tbl.StreamSpecification.StreamViewType)
	assert.Equal(t, []string{"state"}, tbl.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes)
	b, err := json.Marshal(dynamodb.CreateTableInput{TableName: aws.String("tasks"), BillingMode: dynamodb.BillingModePayPerRequest})
	require.NoError(t, err)
	assert.JSONEq(t, `{"TableName":"tasks","AttributeDefinitions":null,"KeySchema":null,"BillingMode":"PAY_PER_REQUEST"}`, string(b))
}

// The reads' answers are read in one pass: members the client does not
// know are skipped whatever their shape and place, strings are unescaped
// as encoding/json does, and null or absent members are empty.
func TestReadAnswers(t *testing.T) {
	item := map[string]av{"PK": s("T#1"), "d": s("{\"k\":\"é\\\\\"}\n")}
	query := []struct {
		name, body string
		want       *dynamodb.QueryOutput
	}{
		{"unknown members around the items", `{"Extra":{"a":[1,{"b":"}\"]"}],"c":null},"Items":[{"PK":{"S":"T#1"},"d":{"S":"{\"k\":\"\u00e9\\\\\"}\n"}}],"Count":1,"Last":-1.5e3}`,
			&dynamodb.QueryOutput{Items: []map[string]av{item}, Count: 1}},
		{"space everywhere", " {\n \"Count\" : 0 ,\t\"Items\" : [ ] , \"Flag\" : true ,\"ScannedCount\" : 4 }\n",
			&dynamodb.QueryOutput{Items: []map[string]av{}, ScannedCount: 4}},
		{"null members", `{"Items":null,"LastEvaluatedKey":null,"ConsumedCapacity":null,"Count":null}`, &dynamodb.QueryOutput{}},
		{"an empty answer", `{}`, &dynamodb.QueryOutput{}},
		{"a number last", `{"LastEvaluatedKey":{"PK":{"S":"T#2"}},"ConsumedCapacity":{"CapacityUnits":0.5},"ScannedCount":7}`,
			&dynamodb.QueryOutput{LastEvaluatedKey: map[string]av{"PK": s("T#2")}, ConsumedCapacity: &dynamodb.ConsumedCapacity{CapacityUnits: aws.Float64(0.5)}, ScannedCount: 7}},
	}
	for _, tt := range query {
		t.Run("Query/"+tt.name, func(t *testing.T) {
			c, _ := newClient(t, answer{200, tt.body, ""})
			out, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("t")})
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}
	get := []struct {
		name, body string
		want       *dynamodb.GetItemOutput
	}{
		{"an item among unknown members", `{"X":"\"}","Item":{"PK":{"S":"T#1"},"d":{"S":"{\"k\":\"\u00e9\\\\\"}\n"}},"Y":[[],{}],"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5}}`,
			&dynamodb.GetItemOutput{Item: item, ConsumedCapacity: &dynamodb.ConsumedCapacity{TableName: aws.String("t"), CapacityUnits: aws.Float64(0.5)}}},
		{"no item", `{}`, &dynamodb.GetItemOutput{}},
		{"a null item", `{"Item":null}`, &dynamodb.GetItemOutput{}},
	}
	for _, tt := range get {
		t.Run("GetItem/"+tt.name, func(t *testing.T) {
			c, _ := newClient(t, answer{200, tt.body, ""})
			out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}
	for _, body := range []string{`{"Items":{}}`, `{"Items":[1]}`, `{"Count":"1"}`, `{"ConsumedCapacity":[]}`, `[]`} {
		c, _ := newClient(t, answer{200, body, ""})
		_, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("t")})
		assert.ErrorContains(t, err, "dynamodb: Query: decode the answer", body)
	}
	for _, body := range []string{`{"Item":[]}`, `{"Item":{"a":1}}`, `{"ConsumedCapacity":"x"}`, `"x"`} {
		c, _ := newClient(t, answer{200, body, ""})
		_, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]av{"PK": s("a")}})
		assert.ErrorContains(t, err, "dynamodb: GetItem: decode the answer", body)
	}
}
