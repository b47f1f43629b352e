package lambdainvoke_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/lambdainvoke"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sfntest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// Lambda's own API (moto's, which serves the same operation): the event
// reaches the function, and InvokeAsync returns before the function ends,
// as Lambda queues an Event invocation. (moto answers any function name;
// Lambda's refusals are TestInvokeAsyncRetries'.)
func TestInvokeAsyncOnLambdaAPI(t *testing.T) {
	got := make(chan string, 1)
	release := make(chan struct{})
	_, arn := sfntest.Function(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
		<-release
		io.WriteString(w, `{}`)
	}))
	defer close(release)
	c, err := lambdainvoke.New(awstest.Config(t), lambdainvoke.Options{})
	require.NoError(t, err)
	ctx := context.Background()

	require.NoError(t, c.InvokeAsync(ctx, arn, []byte(`{"action":"run","taskId":"t-1"}`)), "by ARN")
	select {
	case b := <-got:
		assert.JSONEq(t, `{"action":"run","taskId":"t-1"}`, b)
	case <-time.After(10 * time.Second):
		t.Fatal("the function was not invoked")
	}

}

// signedAt signs every request at one instant; the waits between
// attempts are the system clock's.
type signedAt struct {
	clock.System
	at time.Time
}

func (s signedAt) Now() time.Time { return s.at }

func newClient(t *testing.T, url string) *lambdainvoke.Client {
	t.Helper()
	cfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "session-token")}
	c, err := lambdainvoke.New(cfg, lambdainvoke.Options{Endpoint: url, MaxBackoff: 20 * time.Millisecond,
		Clock: signedAt{at: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}})
	require.NoError(t, err)
	return c
}

// The request is Lambda's Invoke with the Event type, signed for the
// lambda service in the client's region, with the session token.
func TestInvokeAsyncRequest(t *testing.T) {
	var req *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req, body = r, string(b)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	const fn = "arn:aws:lambda:eu-west-1:123456789012:function:stack-WorkerFunction-ABC"
	require.NoError(t, newClient(t, srv.URL).InvokeAsync(context.Background(), fn, []byte(`{"taskId":"t"}`)))
	require.NotNil(t, req)
	assert.Equal(t, http.MethodPost, req.Method)
	assert.Equal(t, "/2015-03-31/functions/"+fn+"/invocations", req.URL.Path)
	assert.Equal(t, "Event", req.Header.Get("X-Amz-Invocation-Type"))
	assert.Equal(t, `{"taskId":"t"}`, body)
	assert.Equal(t, "session-token", req.Header.Get("X-Amz-Security-Token"))
	assert.Equal(t, "20300102T030405Z", req.Header.Get("X-Amz-Date"))
	assert.True(t, strings.HasPrefix(req.Header.Get("Authorization"),
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20300102/eu-west-1/lambda/aws4_request, SignedHeaders="), req.Header.Get("Authorization"))
}

// Throttling and Lambda's failures are tried again, a few times; other
// refusals are not.
func TestInvokeAsyncRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []int
		calls    int32
		code     string
	}{
		{"throttled once", []int{429, 202}, 2, ""},
		{"failing", []int{500, 502, 503, 202}, 3, "ServiceException"},
		{"throttled on and on", []int{429, 429, 429, 429}, 3, "TooManyRequestsException"},
		{"refused", []int{403, 202}, 1, "AccessDeniedException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				status := tc.statuses[n-1]
				switch status {
				case 429:
					w.Header().Set("X-Amzn-ErrorType", "TooManyRequestsException:http://internal.amazon.com/coral/com.amazon.awsgatewayproxy/")
					w.WriteHeader(status)
					io.WriteString(w, `{"Type":"User","message":"Rate Exceeded.","Reason":"ReservedFunctionConcurrentInvocationLimitExceeded"}`)
				case 403:
					w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
					w.WriteHeader(status)
					io.WriteString(w, `{"Message":"User is not authorized to perform: lambda:InvokeFunction"}`)
				case 202:
					w.WriteHeader(status)
				default:
					w.WriteHeader(status)
					io.WriteString(w, `{"Type":"Service","message":"internal failure"}`)
				}
			}))
			defer srv.Close()
			err := newClient(t, srv.URL).InvokeAsync(context.Background(), "worker", []byte(`{}`))
			assert.Equal(t, tc.calls, calls.Load())
			if tc.code == "" {
				assert.NoError(t, err)
				return
			}
			var le *lambdainvoke.Error
			require.ErrorAs(t, err, &le)
			assert.Contains(t, []string{tc.code, "Service"}, le.Code)
			assert.NotEmpty(t, le.Message)
		})
	}
}

func TestInvokeAsyncRefusesWhatLambdaWould(t *testing.T) {
	c := newClient(t, "http://127.0.0.1:1")
	ctx := context.Background()
	assert.ErrorContains(t, c.InvokeAsync(ctx, "", []byte(`{}`)), "function name is required")
	big := make([]byte, lambdainvoke.MaxPayloadBytes+1)
	assert.ErrorContains(t, c.InvokeAsync(ctx, "worker", big), "exceeds Lambda's 262144")

	_, err := lambdainvoke.New(aws.Config{Credentials: credentials.NewStaticCredentialsProvider("a", "b", "")}, lambdainvoke.Options{})
	assert.ErrorContains(t, err, "region is required")
	_, err = lambdainvoke.New(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("a", "b", "")}, lambdainvoke.Options{Endpoint: "lambda.example.com"})
	assert.ErrorContains(t, err, "not an http(s) endpoint URL")
}
