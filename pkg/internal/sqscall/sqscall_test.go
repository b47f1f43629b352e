package sqscall_test

import (
	"context"
	"crypto/md5" //nolint:gosec // SQS's digest of a message body
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sigv4test"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

var (
	creds    = aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "session"}
	provider = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
)

const queue = "https://sqs.eu-west-1.amazonaws.com/123456789012/a2a-push-deliveries"

// The AWS SDK's own SQS client is the judge of the wire format (only tests
// link it now): both clients make the push pipeline's three calls to a
// fake endpoint, whose requests must agree (method, path, content type,
// target, JSON body, credential scope, session token) and be validly
// signed; both then read the same answers, and must agree.
func TestWireMatchesTheSDK(t *testing.T) {
	f := sigv4test.NewJSONEndpoint(t, creds)
	// The SDK checks the MD5 digests of what SQS took, of the attributes
	// too; the fake gives the bodies' only (the SDK's own check of them is
	// TestBodyChanged's).
	sdk := sqs.New(sqs.Options{Region: "eu-west-1", BaseEndpoint: aws.String(f.URL), Retryer: aws.NopRetryer{}, Credentials: provider, DisableMessageChecksumValidation: true})
	ours, err := sqscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sqscall.Options{Endpoint: f.URL, MaxAttempts: 1})
	require.NoError(t, err)
	ctx := context.Background()
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	body := `{"taskId":"t-1","quote":"\"<&>\"","odd":"\ufffd"}`

	t.Run("SendMessage", func(t *testing.T) {
		f.Got, f.Answer = nil, `{"MessageId":"m-1","MD5OfMessageBody":"`+md5Hex(body)+`"}`
		out, err := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queue), MessageBody: aws.String(body),
			MessageAttributes: map[string]types.MessageAttributeValue{
				"reason": {DataType: aws.String("String"), StringValue: aws.String("delivery failed")},
				"count":  {DataType: aws.String("Number"), StringValue: aws.String("3")},
			},
			MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(trace)}},
		})
		require.NoError(t, err)
		id, err := ours.SendMessage(ctx, queue, sqscall.Message{Body: body,
			Attributes:       map[string]sqscall.Attribute{"reason": sqscall.String("delivery failed"), "count": {DataType: "Number", StringValue: "3"}},
			SystemAttributes: map[string]sqscall.Attribute{"AWSTraceHeader": sqscall.String(trace)},
		})
		require.NoError(t, err)
		assert.Equal(t, aws.ToString(out.MessageId), id)
		assert.Equal(t, "m-1", id)
		assertSameRequests(t, f, "SendMessage")
	})

	t.Run("SendMessage with no attributes, an id ignored", func(t *testing.T) {
		f.Got, f.Answer = nil, `{"MessageId":"m-2"}`
		_, err := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queue), MessageBody: aws.String("plain")})
		require.NoError(t, err)
		_, err = ours.SendMessage(ctx, queue, sqscall.Message{ID: "batch-id", Body: "plain"})
		require.NoError(t, err)
		assertSameRequests(t, f, "SendMessage")
	})

	t.Run("SendMessageBatch, partly refused", func(t *testing.T) {
		f.Got, f.Answer = nil, `{"Successful":[{"Id":"0","MessageId":"m-0","MD5OfMessageBody":"`+md5Hex(body)+`"}],`+
			`"Failed":[{"Id":"1","Code":"InvalidParameterValue","Message":"too long","SenderFault":true},{"Id":"2","Code":"InternalError","Message":"try again","SenderFault":false}]}`
		out, err := sdk.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(queue), Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("0"), MessageBody: aws.String(body), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(trace)}}},
			{Id: aws.String("1"), MessageBody: aws.String("b")},
			{Id: aws.String("2"), MessageBody: aws.String("c")},
		}})
		require.NoError(t, err)
		res, err := ours.SendMessageBatch(ctx, queue, []sqscall.Message{
			{ID: "0", Body: body, SystemAttributes: map[string]sqscall.Attribute{"AWSTraceHeader": sqscall.String(trace)}},
			{ID: "1", Body: "b"},
			{ID: "2", Body: "c"},
		})
		require.NoError(t, err)
		assertSameRequests(t, f, "SendMessageBatch")
		assert.Equal(t, []sqscall.BatchSent{{ID: "0", MessageID: "m-0"}}, res.Successful)
		assert.Equal(t, []sqscall.BatchFailed{
			{ID: "1", Code: "InvalidParameterValue", Message: "too long", SenderFault: true},
			{ID: "2", Code: "InternalError", Message: "try again"},
		}, res.Failed, "each entry's failure, as SQS gave it")
		require.Len(t, out.Failed, 2)
		for i, e := range out.Failed {
			assert.Equal(t, sqscall.BatchFailed{ID: aws.ToString(e.Id), Code: aws.ToString(e.Code), Message: aws.ToString(e.Message), SenderFault: e.SenderFault}, res.Failed[i])
		}
	})

	t.Run("ChangeMessageVisibility", func(t *testing.T) {
		for _, secs := range []int32{120, 0} {
			f.Got, f.Answer = nil, `{}`
			_, err := sdk.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(queue), ReceiptHandle: aws.String("rh+/="), VisibilityTimeout: secs})
			require.NoError(t, err)
			require.NoError(t, ours.ChangeMessageVisibility(ctx, queue, "rh+/=", secs))
			assertSameRequests(t, f, "ChangeMessageVisibility")
			assert.Equal(t, float64(secs), f.Got[1].Body.(map[string]any)["VisibilityTimeout"], "a timeout of 0 is sent: it makes the message visible now")
		}
	})
}

// assertSameRequests checks that the fake saw the SDK's request, then the
// same of ours.
func assertSameRequests(t *testing.T, f *sigv4test.JSONEndpoint, op string) {
	t.Helper()
	require.Len(t, f.Got, 2)
	assert.Equal(t, f.Got[0], f.Got[1], "the requests")
	assert.Equal(t, "AmazonSQS."+op, f.Got[1].Target)
	assert.Equal(t, "application/x-amz-json-1.0", f.Got[1].ContentType)
	assert.Equal(t, "eu-west-1/sqs/aws4_request", f.Got[1].Scope)
	assert.Equal(t, "session", f.Got[1].Token)
}

// A refusal of SQS is an *awscall.Error with SQS's code, message and
// status, for every operation; the operation is named.
func TestRefusalsAreTyped(t *testing.T) {
	f := sigv4test.NewJSONEndpoint(t, creds)
	c, err := sqscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sqscall.Options{Endpoint: f.URL, MaxAttempts: 1})
	require.NoError(t, err)
	ctx := context.Background()
	calls := map[string]func() error{
		"SendMessage": func() error { _, err := c.SendMessage(ctx, queue, sqscall.Message{Body: "b"}); return err },
		"SendMessageBatch": func() error {
			_, err := c.SendMessageBatch(ctx, queue, []sqscall.Message{{ID: "0", Body: "b"}})
			return err
		},
		"ChangeMessageVisibility": func() error { return c.ChangeMessageVisibility(ctx, queue, "rh", 10) },
	}
	f.AssertRefusalsTyped(t, "sqs", calls, []sigv4test.Refusal{
		{Name: "a missing queue", Body: `{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}`, Status: 400, Code: "QueueDoesNotExist"},
		{Name: "a bad parameter, by header", ErrorType: "com.amazonaws.sqs#InvalidParameterValue", Body: `{"message":"too long"}`, Status: 400, Code: "InvalidParameterValue"},
		{Name: "a disabled key", Body: `{"__type":"com.amazonaws.sqs#KmsDisabled","message":"disabled"}`, Status: 400, Code: "KmsDisabled"},
		{Name: "a failure of SQS", Body: `{"__type":"com.amazonaws.sqs#InternalError","message":"oops"}`, Status: 500, Code: "InternalError"},
	})
}

// Throttling is tried again with full jitter: SQS answers RequestThrottled
// (and KMS's throttling) with HTTP 400; what stays throttled is a refusal
// that says how many attempts it took.
func TestRetriesThrottling(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		throttled    int32
		wantErr      bool
	}{
		{"passes", `{"__type":"com.amazonaws.sqs#RequestThrottled","message":"slow down"}`, 2, false},
		{"stays", `{"__type":"com.amazonaws.sqs#RequestThrottled","message":"slow down"}`, 9, true},
		{"throttling exception", `{"__type":"com.amazonaws.sqs#ThrottlingException","message":"slow down"}`, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= tt.throttled {
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, tt.answer)
					return
				}
				io.WriteString(w, `{"Successful":[{"Id":"0","MessageId":"m-0"}],"Failed":[]}`)
			}))
			defer hs.Close()
			c, err := sqscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sqscall.Options{Endpoint: hs.URL, MaxBackoff: time.Millisecond})
			require.NoError(t, err)
			res, err := c.SendMessageBatch(context.Background(), queue, []sqscall.Message{{ID: "0", Body: "b"}})
			if tt.wantErr {
				var e *awscall.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "RequestThrottled", e.Code)
				assert.Contains(t, err.Error(), "after 3 attempts")
				assert.EqualValues(t, 3, calls.Load())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []sqscall.BatchSent{{ID: "0", MessageID: "m-0"}}, res.Successful)
			assert.EqualValues(t, 3, calls.Load())
		})
	}
}

// The endpoint is the region's SQS endpoint unless one is configured; a
// client needs a region and credentials.
func TestNew(t *testing.T) {
	_, err := sqscall.New(aws.Config{Credentials: provider}, sqscall.Options{})
	assert.Error(t, err)
	_, err = sqscall.New(aws.Config{Region: "eu-west-1"}, sqscall.Options{})
	assert.Error(t, err)
	var url string
	answer := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		url = r.URL.String()
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`))}, nil
	})}
	c, err := sqscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sqscall.Options{HTTPClient: answer})
	require.NoError(t, err)
	require.NoError(t, c.ChangeMessageVisibility(context.Background(), queue, "rh", 1))
	assert.Equal(t, "https://sqs.eu-west-1.amazonaws.com/", url)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// On moto's SQS: a message sent alone and a batch arrive, with their
// attributes; a batch with an entry larger than the queue takes is refused
// (moto refuses the whole batch; SQS's per-entry failures are
// TestWireMatchesTheSDK's); a visibility change takes, and a missing queue
// is QueueDoesNotExist.
func TestOnSQS(t *testing.T) {
	admin := awstest.SQS(t)
	ctx := context.Background()
	q, err := admin.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(awstest.UniqueName(t, "small")), Attributes: map[string]string{"MaximumMessageSize": "1024"}})
	require.NoError(t, err)
	url := aws.ToString(q.QueueUrl)
	c := awstest.SQSCall(t, sqscall.Options{})

	id, err := c.SendMessage(ctx, url, sqscall.Message{Body: `{"n":1}`, Attributes: map[string]sqscall.Attribute{"reason": sqscall.String("why")}})
	require.NoError(t, err)
	assert.NotEmpty(t, id)
	big := strings.Repeat("x", 2048)
	_, err = c.SendMessageBatch(ctx, url, []sqscall.Message{{ID: "a", Body: `{"n":2}`}, {ID: "big", Body: big}})
	var e *awscall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "InvalidParameterValue", e.Code)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	res, err := c.SendMessageBatch(ctx, url, []sqscall.Message{{ID: "a", Body: `{"n":2}`}, {ID: "c", Body: `{"n":3}`}})
	require.NoError(t, err)
	var sent []string
	for _, s := range res.Successful {
		sent = append(sent, s.ID)
		assert.NotEmpty(t, s.MessageID)
	}
	assert.ElementsMatch(t, []string{"a", "c"}, sent)
	assert.Empty(t, res.Failed)

	msgs := awstest.Receive(t, admin, url, 1)
	require.Len(t, msgs, 3)
	bodies := map[string]string{}
	for _, m := range msgs {
		bodies[m.Body] = m.ReceiptHandle
	}
	assert.Contains(t, bodies, `{"n":1}`)
	for _, m := range msgs {
		if m.Body == `{"n":1}` {
			assert.Equal(t, "why", aws.ToString(m.MessageAttributes["reason"].StringValue))
		}
	}
	require.NoError(t, c.ChangeMessageVisibility(ctx, url, bodies[`{"n":2}`], 0))
	again := awstest.Receive(t, admin, url, 1)
	require.Len(t, again, 1, "the message made visible again, and only it")
	assert.Equal(t, `{"n":2}`, again[0].Body)

	_, err = c.SendMessage(ctx, url+"-missing", sqscall.Message{Body: "b"})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "QueueDoesNotExist", e.Code)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// A message whose body SQS took changed (its MD5 digest is not the body's)
// is refused, as the SDK's client refuses it: SendMessage fails with
// ErrBodyChanged, a batch lists it as failed, not by the sender's fault.
// An answer without a digest is taken.
func TestBodyChanged(t *testing.T) {
	answer := ""
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, answer) }))
	defer hs.Close()
	c, err := sqscall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sqscall.Options{Endpoint: hs.URL, MaxAttempts: 1})
	require.NoError(t, err)
	sdk := sqs.New(sqs.Options{Region: "eu-west-1", BaseEndpoint: aws.String(hs.URL), Retryer: aws.NopRetryer{}, Credentials: provider})
	ctx := context.Background()

	for _, tc := range []struct {
		name, digest string
		changed      bool
	}{
		{"the body's digest", md5Hex("hello"), false},
		{"in capitals (SQS writes lower case; the SDK refuses them)", strings.ToUpper(md5Hex("hello")), true},
		{"another body's", md5Hex("hellO"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer = `{"MessageId":"m-1","MD5OfMessageBody":"` + tc.digest + `"}`
			id, err := c.SendMessage(ctx, queue, sqscall.Message{Body: "hello"})
			_, sdkErr := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queue), MessageBody: aws.String("hello")})
			if !tc.changed {
				require.NoError(t, err)
				require.NoError(t, sdkErr, "the SDK takes it too")
				assert.Equal(t, "m-1", id)
				return
			}
			require.ErrorIs(t, err, sqscall.ErrBodyChanged)
			assert.ErrorContains(t, err, "message m-1")
			assert.Error(t, sdkErr, "the SDK refuses it too")
		})
	}

	answer = `{"MessageId":"m-1"}`
	_, err = c.SendMessage(ctx, queue, sqscall.Message{Body: "hello"})
	require.NoError(t, err, "no digest: nothing to check")

	answer = `{"Successful":[{"Id":"a","MessageId":"m-a","MD5OfMessageBody":"` + md5Hex("A") + `"},` +
		`{"Id":"b","MessageId":"m-b","MD5OfMessageBody":"` + md5Hex("not b") + `"}],"Failed":[{"Id":"c","Code":"InternalError","Message":"try again"}]}`
	res, err := c.SendMessageBatch(ctx, queue, []sqscall.Message{{ID: "a", Body: "A"}, {ID: "b", Body: "B"}, {ID: "c", Body: "C"}})
	require.NoError(t, err)
	assert.Equal(t, []sqscall.BatchSent{{ID: "a", MessageID: "m-a"}}, res.Successful)
	require.Len(t, res.Failed, 2)
	assert.Equal(t, "c", res.Failed[0].ID)
	assert.Equal(t, sqscall.BodyChangedCode, res.Failed[1].Code)
	assert.Equal(t, "b", res.Failed[1].ID)
	assert.False(t, res.Failed[1].SenderFault)
	assert.Contains(t, res.Failed[1].Message, "m-b")
}
