package streamscall_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sigv4test"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

var (
	creds    = aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "session"}
	provider = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
)

const (
	streamARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/a2a-tasks/stream/2026-11-27T05:00:00.000"
	shardID   = "shardId-00000001732683600000-abcdef12"
)

func newClient(t *testing.T, endpoint string, o streamscall.Options) *streamscall.Client {
	t.Helper()
	o.Endpoint = endpoint
	c, err := streamscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, o)
	require.NoError(t, err)
	return c
}

// records is a GetRecords answer as DynamoDB Streams gives it: an INSERT
// with every data type, a MODIFY with both images, a REMOVE of TTL with
// its user identity; the shard goes on.
const records = `{"Records":[` +
	`{"eventID":"e1","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"eu-west-1","dynamodb":{` +
	`"ApproximateCreationDateTime":1795762519,"Keys":{"PK":{"S":"T#t1"},"SK":{"S":"H"}},` +
	`"NewImage":{"PK":{"S":"T#t1"},"SK":{"S":"H"},"n":{"N":"1.50"},"b":{"B":"AQI="},"bool":{"BOOL":true},"null":{"NULL":true},` +
	`"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AQ=="]},"l":{"L":[{"S":"x"},{"N":"3"}]},"m":{"M":{"k":{"S":"\"<&>\" \u00e9"}}}},` +
	`"SequenceNumber":"1100000000017454423009","SizeBytes":385,"StreamViewType":"NEW_AND_OLD_IMAGES"}},` +
	`{"eventID":"e2","eventName":"MODIFY","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"eu-west-1","dynamodb":{` +
	`"ApproximateCreationDateTime":1795762520,"Keys":{"PK":{"S":"T#t1"},"SK":{"S":"H"}},` +
	`"NewImage":{"PK":{"S":"T#t1"},"SK":{"S":"H"},"version":{"N":"2"}},"OldImage":{"PK":{"S":"T#t1"},"SK":{"S":"H"},"version":{"N":"1"}},` +
	`"SequenceNumber":"1100000000017454423010","SizeBytes":120,"StreamViewType":"NEW_AND_OLD_IMAGES"}},` +
	`{"eventID":"e3","eventName":"REMOVE","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"eu-west-1",` +
	`"userIdentity":{"PrincipalId":"dynamodb.amazonaws.com","Type":"Service"},"dynamodb":{` +
	`"ApproximateCreationDateTime":1795762521,"Keys":{"PK":{"S":"T#t1"},"SK":{"S":"H"}},` +
	`"OldImage":{"PK":{"S":"T#t1"},"SK":{"S":"H"},"version":{"N":"2"}},` +
	`"SequenceNumber":"1100000000017454423011","SizeBytes":80,"StreamViewType":"NEW_AND_OLD_IMAGES"}}` +
	`],"NextShardIterator":"next-iterator"}`

// The AWS SDK's own DynamoDB Streams client is the judge of the wire
// format (only tests link it now): both clients make the follower's three
// calls to a fake endpoint, whose requests must agree (method, path,
// content type, target, JSON body, credential scope, session token) and be
// validly signed; both then read the same answers, and must agree.
func TestWireMatchesTheSDK(t *testing.T) {
	f := sigv4test.NewJSONEndpoint(t, creds)
	sdk := dynamodbstreams.New(dynamodbstreams.Options{Region: "eu-west-1", BaseEndpoint: aws.String(f.URL), Retryer: aws.NopRetryer{}, Credentials: provider})
	ours := newClient(t, f.URL, streamscall.Options{MaxAttempts: 1})
	ctx := context.Background()

	t.Run("DescribeStream", func(t *testing.T) {
		for _, start := range []string{"", shardID} {
			f.Got, f.Answer = nil, `{"StreamDescription":{"StreamArn":"`+streamARN+`","StreamLabel":"2026-11-27T05:00:00.000","StreamStatus":"ENABLED",`+
				`"StreamViewType":"NEW_AND_OLD_IMAGES","CreationRequestDateTime":1795762519.504,"TableName":"a2a-tasks",`+
				`"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],`+
				`"Shards":[{"ShardId":"shardId-1","SequenceNumberRange":{"StartingSequenceNumber":"100","EndingSequenceNumber":"200"}},`+
				`{"ShardId":"shardId-2","ParentShardId":"shardId-1","SequenceNumberRange":{"StartingSequenceNumber":"201"}}],"LastEvaluatedShardId":"shardId-2"}}`
			in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamARN)}
			if start != "" {
				in.ExclusiveStartShardId = aws.String(start)
			}
			want, err := sdk.DescribeStream(ctx, in)
			require.NoError(t, err)
			got, err := ours.DescribeStream(ctx, streamARN, start)
			require.NoError(t, err)
			assertSameRequests(t, f, "DescribeStream")
			d := want.StreamDescription
			assert.Equal(t, string(d.StreamStatus), got.Status)
			assert.Equal(t, string(d.StreamViewType), got.ViewType)
			assert.Equal(t, aws.ToString(d.LastEvaluatedShardId), got.LastEvaluatedShardID)
			require.Len(t, got.Shards, len(d.Shards))
			for i, s := range d.Shards {
				assert.Equal(t, aws.ToString(s.ShardId), got.Shards[i].ID)
				assert.Equal(t, aws.ToString(s.ParentShardId), got.Shards[i].ParentID)
				assert.Equal(t, aws.ToString(s.SequenceNumberRange.StartingSequenceNumber), got.Shards[i].SequenceNumberRange.Starting)
				assert.Equal(t, aws.ToString(s.SequenceNumberRange.EndingSequenceNumber), got.Shards[i].SequenceNumberRange.Ending)
			}
			assert.Equal(t, "shardId-1", got.Shards[1].ParentID)
			assert.Equal(t, "200", got.Shards[0].SequenceNumberRange.Ending)
		}
	})

	t.Run("GetShardIterator", func(t *testing.T) {
		for _, at := range []struct {
			from streamtypes.ShardIteratorType
			seq  string
		}{{streamtypes.ShardIteratorTypeLatest, ""}, {streamtypes.ShardIteratorTypeTrimHorizon, ""}, {streamtypes.ShardIteratorTypeAfterSequenceNumber, "1100000000017454423010"}} {
			f.Got, f.Answer = nil, `{"ShardIterator":"arn:aws:dynamodb:eu-west-1:123456789012:table/a2a-tasks/stream/x|1|AAAA+/=="}`
			in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(streamARN), ShardId: aws.String(shardID), ShardIteratorType: at.from}
			if at.seq != "" {
				in.SequenceNumber = aws.String(at.seq)
			}
			want, err := sdk.GetShardIterator(ctx, in)
			require.NoError(t, err)
			got, err := ours.GetShardIterator(ctx, streamARN, shardID, streamscall.IteratorType(at.from), at.seq)
			require.NoError(t, err)
			assertSameRequests(t, f, "GetShardIterator")
			assert.Equal(t, aws.ToString(want.ShardIterator), got)
		}
	})

	t.Run("GetRecords", func(t *testing.T) {
		f.Got, f.Answer = nil, records
		want, err := sdk.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("it+/=")})
		require.NoError(t, err)
		got, err := ours.GetRecords(ctx, "it+/=")
		require.NoError(t, err)
		assertSameRequests(t, f, "GetRecords")
		assert.Equal(t, aws.ToString(want.NextShardIterator), got.NextShardIterator)
		assert.Empty(t, got.Undecoded)
		// The SDK's records, made into the records Lambda hands a
		// function (through the JSON of a Lambda event), are ours.
		require.Len(t, got.Records, len(want.Records))
		for i, r := range want.Records {
			lambda, err := awstest.LambdaStreamRecord(r)
			require.NoError(t, err)
			lambda.UserIdentity = got.Records[i].UserIdentity // not in awstest's event
			assert.Equal(t, lambda, got.Records[i], "record %d", i)
		}
		assert.Equal(t, "\"<&>\" é", got.Records[0].Change.NewImage["m"].Map()["k"].String())
		assert.Equal(t, []byte{1, 2}, got.Records[0].Change.NewImage["b"].Binary())
		assert.Equal(t, int64(1795762519), got.Records[0].Change.ApproximateCreationDateTime.Unix())
		assert.Equal(t, &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}, got.Records[2].UserIdentity)
		assert.Equal(t, aws.ToString(want.Records[2].UserIdentity.PrincipalId), got.Records[2].UserIdentity.PrincipalID)
	})

	t.Run("GetRecords of a closed shard's end", func(t *testing.T) {
		f.Got, f.Answer = nil, `{"Records":[]}`
		want, err := sdk.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("it")})
		require.NoError(t, err)
		got, err := ours.GetRecords(ctx, "it")
		require.NoError(t, err)
		assertSameRequests(t, f, "GetRecords")
		assert.Nil(t, want.NextShardIterator)
		assert.Equal(t, "", got.NextShardIterator, "no iterator: the shard is closed")
		assert.Empty(t, got.Records)
	})
}

// assertSameRequests checks that the fake saw the SDK's request, then the
// same of ours.
func assertSameRequests(t *testing.T, f *sigv4test.JSONEndpoint, op string) {
	t.Helper()
	require.Len(t, f.Got, 2)
	assert.Equal(t, f.Got[0], f.Got[1], "the requests")
	assert.Equal(t, "DynamoDBStreams_20120810."+op, f.Got[1].Target)
	assert.Equal(t, "application/x-amz-json-1.0", f.Got[1].ContentType)
	assert.Equal(t, "eu-west-1/dynamodb/aws4_request", f.Got[1].Scope, "signed as DynamoDB's")
	assert.Equal(t, "session", f.Got[1].Token)
}

// A record of a data type this client does not know (or otherwise not a
// record) is set aside with its names and why; the others, and the
// iterator past them, are read all the same. An answer that is not JSON is
// an error.
func TestGetRecordsSetsAsideWhatDoesNotDecode(t *testing.T) {
	f := sigv4test.NewJSONEndpoint(t, creds)
	c := newClient(t, f.URL, streamscall.Options{MaxAttempts: 1})
	f.Answer = `{"Records":[` +
		`{"eventID":"e1","eventName":"INSERT","dynamodb":{"Keys":{"PK":{"S":"a"}},"NewImage":{"v":{"VECTOR":[1]}},"SequenceNumber":"11"}},` +
		`{"eventID":"e2","eventName":"INSERT","dynamodb":{"Keys":{"PK":{"S":"b"}},"NewImage":{"v":{"S":"ok"}},"SequenceNumber":"12"}},` +
		`{"eventID":"e3","eventName":"INSERT","dynamodb":{"Keys":{"PK":{"S":"c","N":"1"}},"SequenceNumber":"13"}},` +
		`"not a record"` +
		`],"NextShardIterator":"next"}`
	got, err := c.GetRecords(context.Background(), "it")
	require.NoError(t, err)
	assert.Equal(t, "next", got.NextShardIterator)
	require.Len(t, got.Records, 1)
	assert.Equal(t, "e2", got.Records[0].EventID)
	require.Len(t, got.Undecoded, 3)
	assert.Equal(t, "e1", got.Undecoded[0].EventID)
	assert.Equal(t, "11", got.Undecoded[0].SequenceNumber)
	assert.ErrorContains(t, got.Undecoded[0].Err, "VECTOR")
	assert.Equal(t, "e3", got.Undecoded[1].EventID)
	assert.Error(t, got.Undecoded[1].Err)
	assert.Equal(t, "", got.Undecoded[2].EventID)
	assert.Error(t, got.Undecoded[2].Err)

	for _, answer := range []string{`<html>oops</html>`, ``, `{"Records":{}}`} {
		f.Answer = answer
		_, err = c.GetRecords(context.Background(), "it")
		assert.ErrorContains(t, err, "dynamodb streams GetRecords: decode the answer", answer)
	}
}

// A refusal of DynamoDB Streams is an *awscall.Error with its code,
// message and status, for every operation, which Refused tells apart; the
// operation is named.
func TestRefusalsAreTyped(t *testing.T) {
	f := sigv4test.NewJSONEndpoint(t, creds)
	c := newClient(t, f.URL, streamscall.Options{MaxAttempts: 1})
	ctx := context.Background()
	calls := map[string]func() error{
		"DescribeStream": func() error { _, err := c.DescribeStream(ctx, streamARN, ""); return err },
		"GetShardIterator": func() error {
			_, err := c.GetShardIterator(ctx, streamARN, shardID, streamscall.AfterSequenceNumber, "1")
			return err
		},
		"GetRecords": func() error { _, err := c.GetRecords(ctx, "it"); return err },
	}
	f.AssertRefusalsTyped(t, "dynamodb streams", calls, []sigv4test.Refusal{
		{Name: "an expired iterator", Body: `{"__type":"com.amazonaws.dynamodb.v20120810#ExpiredIteratorException","message":"Iterator expired"}`, Status: 400, Code: streamscall.ExpiredIterator},
		{Name: "trimmed records, by header", ErrorType: "com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException", Body: `{"message":"trimmed"}`, Status: 400, Code: streamscall.TrimmedDataAccess},
		{Name: "a missing stream", Body: `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Requested resource not found"}`, Status: 400, Code: streamscall.ResourceNotFound},
		{Name: "a bad request", Body: `{"__type":"com.amazon.coral.validate#ValidationException","message":"1 validation error"}`, Status: 400, Code: "ValidationException"},
		{Name: "a failure of the API", Body: `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"oops"}`, Status: 500, Code: "InternalServerError"},
	})
	assert.False(t, awscall.Refused(io.EOF, streamscall.ExpiredIterator), "not a refusal")
}

// Throttling is tried again with full jitter: DynamoDB Streams answers
// LimitExceededException with HTTP 400, its failures with 5xx; what stays
// throttled is a refusal that says how many attempts it took.
func TestRetriesThrottling(t *testing.T) {
	for _, tt := range []struct {
		name      string
		status    int
		answer    string
		throttled int32
		wantErr   bool
	}{
		{"passes", 400, `{"__type":"com.amazonaws.dynamodb.v20120810#LimitExceededException","message":"slow down"}`, 2, false},
		{"stays", 400, `{"__type":"com.amazonaws.dynamodb.v20120810#LimitExceededException","message":"slow down"}`, 9, true},
		{"a failure of the API passes", 500, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"oops"}`, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= tt.throttled {
					w.WriteHeader(tt.status)
					io.WriteString(w, tt.answer)
					return
				}
				io.WriteString(w, `{"Records":[],"NextShardIterator":"next"}`)
			}))
			defer hs.Close()
			c := newClient(t, hs.URL, streamscall.Options{MaxBackoff: time.Millisecond})
			got, err := c.GetRecords(context.Background(), "it")
			assert.EqualValues(t, 3, calls.Load())
			if tt.wantErr {
				var e *awscall.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "LimitExceededException", e.Code)
				assert.Contains(t, err.Error(), "after 3 attempts")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "next", got.NextShardIterator)
		})
	}
}

// The endpoint is the region's DynamoDB Streams endpoint (China's under
// amazonaws.com.cn) unless one is configured, AWS_ENDPOINT_URL's included;
// a client needs a region and credentials.
func TestNew(t *testing.T) {
	_, err := streamscall.New(aws.Config{Credentials: provider}, streamscall.Options{})
	assert.ErrorContains(t, err, "region")
	_, err = streamscall.New(aws.Config{Region: "eu-west-1"}, streamscall.Options{})
	assert.ErrorContains(t, err, "credentials")
	_, err = streamscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, streamscall.Options{Endpoint: "ftp://x"})
	assert.ErrorContains(t, err, "not an http(s) endpoint URL")
	for _, tt := range []struct {
		cfg  aws.Config
		want string
	}{
		{aws.Config{Region: "eu-west-1"}, "https://streams.dynamodb.eu-west-1.amazonaws.com/"},
		{aws.Config{Region: "cn-north-1"}, "https://streams.dynamodb.cn-north-1.amazonaws.com.cn/"},
		{aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:5000")}, "http://127.0.0.1:5000/"},
	} {
		var url string
		answer := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			url = r.URL.String()
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"ShardIterator":"it"}`))}, nil
		})}
		tt.cfg.Credentials = provider
		c, err := streamscall.New(tt.cfg, streamscall.Options{HTTPClient: answer})
		require.NoError(t, err)
		_, err = c.GetShardIterator(context.Background(), streamARN, shardID, streamscall.Latest, "")
		require.NoError(t, err)
		assert.Equal(t, tt.want, url)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// On moto's DynamoDB Streams: a table's stream lists its shard, an
// iterator at its start reads an item's INSERT and MODIFY with every data
// type, as the SDK's client reads them; an iterator after the first
// record's sequence number reads the second, and one at the latest record
// reads nothing yet.
func TestOnMoto(t *testing.T) {
	ctx := context.Background()
	db := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "streams")
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: dynamodb.BillingModePayPerRequest,
		AttributeDefinitions: []dynamodb.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: dynamodb.ScalarAttributeTypeS}},
		KeySchema:            []dynamodb.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: dynamodb.KeyTypeHash}},
		StreamSpecification:  &dynamodb.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: dynamodb.StreamViewTypeNewAndOldImages}})
	require.NoError(t, err)
	item := map[string]dynamodb.AttributeValue{
		"PK": &dynamodb.AttributeValueMemberS{Value: "a"}, "n": &dynamodb.AttributeValueMemberN{Value: "1.5"},
		"b": &dynamodb.AttributeValueMemberB{Value: []byte{1, 2}}, "l": &dynamodb.AttributeValueMemberL{Value: []dynamodb.AttributeValue{
			&dynamodb.AttributeValueMemberNULL{Value: true}, &dynamodb.AttributeValueMemberBOOL{Value: false}}},
		"m":  &dynamodb.AttributeValueMemberM{Value: map[string]dynamodb.AttributeValue{"x": &dynamodb.AttributeValueMemberSS{Value: []string{"a", "b"}}}},
		"ns": &dynamodb.AttributeValueMemberNS{Value: []string{"1", "2"}}, "bs": &dynamodb.AttributeValueMemberBS{Value: [][]byte{{1}}},
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(t, err)
	item["n"] = &dynamodb.AttributeValueMemberN{Value: "2"}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(t, err)

	reader := awstest.NewStreamReader(t, table)
	sdkRecords, err := reader.Read(ctx)
	require.NoError(t, err)
	require.Len(t, sdkRecords, 2)

	c, err := streamscall.New(awstest.Config(t), streamscall.Options{})
	require.NoError(t, err)
	stream, err := c.DescribeStream(ctx, reader.ARN(), "")
	require.NoError(t, err)
	assert.Equal(t, "NEW_AND_OLD_IMAGES", stream.ViewType)
	require.Len(t, stream.Shards, 1)
	shard := stream.Shards[0].ID

	it, err := c.GetShardIterator(ctx, reader.ARN(), shard, streamscall.TrimHorizon, "")
	require.NoError(t, err)
	got, err := c.GetRecords(ctx, it)
	require.NoError(t, err)
	assert.Empty(t, got.Undecoded)
	require.Len(t, got.Records, 2)
	for i, r := range got.Records {
		want := sdkRecords[i]
		assert.Equal(t, want.EventID, r.EventID)
		assert.Equal(t, want.EventName, r.EventName)
		assert.Equal(t, want.Change.Keys, r.Change.Keys)
		assert.Equal(t, want.Change.NewImage, r.Change.NewImage)
		assert.Equal(t, want.Change.OldImage, r.Change.OldImage)
		assert.Equal(t, want.Change.SequenceNumber, r.Change.SequenceNumber)
		assert.Equal(t, want.Change.ApproximateCreationDateTime.Unix(), r.Change.ApproximateCreationDateTime.Unix())
	}
	assert.Equal(t, "INSERT", got.Records[0].EventName)
	assert.Equal(t, "MODIFY", got.Records[1].EventName)
	assert.Equal(t, "1.5", got.Records[1].Change.OldImage["n"].Number())
	assert.NotEmpty(t, got.NextShardIterator, "the shard is open")

	it, err = c.GetShardIterator(ctx, reader.ARN(), shard, streamscall.AfterSequenceNumber, got.Records[0].Change.SequenceNumber)
	require.NoError(t, err)
	after, err := c.GetRecords(ctx, it)
	require.NoError(t, err)
	require.Len(t, after.Records, 1)
	assert.Equal(t, got.Records[1].EventID, after.Records[0].EventID)

	it, err = c.GetShardIterator(ctx, reader.ARN(), shard, streamscall.Latest, "")
	require.NoError(t, err)
	latest, err := c.GetRecords(ctx, it)
	require.NoError(t, err)
	assert.Empty(t, latest.Records)
}

// Whatever GetRecords answers decodes without a panic, and every record
// it holds is either read or set aside.
func FuzzRecords(f *testing.F) {
	f.Add([]byte(records))
	f.Add([]byte(`{"Records":[{"eventID":"e","dynamodb":{"NewImage":{"v":{"L":[{"M":{"x":{"BS":["AQ=="]}}}]}}}},1,null,{}],"NextShardIterator":null}`))
	f.Add([]byte(`{"Records":[{"dynamodb":{"Keys":{"k":{}}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got streamscall.Records
		if err := json.Unmarshal(b, &got); err != nil {
			return
		}
		var raw struct{ Records []json.RawMessage }
		require.NoError(t, json.Unmarshal(b, &raw))
		assert.Equal(t, len(raw.Records), len(got.Records)+len(got.Undecoded))
		for _, u := range got.Undecoded {
			assert.Error(t, u.Err)
		}
	})
}
