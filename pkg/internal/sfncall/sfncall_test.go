package sfncall_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sfntest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sigv4test"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

var creds = aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "session"}

// request is what the fake endpoint saw of one call.
type request struct {
	method, path, contentType, target, scope, token string
	body                                            any
}

// The AWS SDK's own Step Functions client is the judge of the wire format
// (only tests link it now): both clients make the runner's four calls to a
// fake endpoint, whose requests must agree (method, path, content type,
// target, JSON body, credential scope, session token) and be validly
// signed; then both read the same answers and errors, and must agree.
func TestWireMatchesTheSDK(t *testing.T) {
	var (
		got    []request
		status = http.StatusOK
		answer = `{}`
	)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body any
		require.NoError(t, json.Unmarshal(b, &body))
		sigv4test.Verify(t, r, b, creds, false)
		got = append(got, request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("X-Amz-Target"), sigv4test.Scope(r)[9:],
			r.Header.Get("X-Amz-Security-Token"), body})
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	defer hs.Close()
	provider := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	sdk := sfn.New(sfn.Options{Region: "eu-west-1", BaseEndpoint: aws.String(hs.URL), Retryer: aws.NopRetryer{}, Credentials: provider})
	ours, err := sfncall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sfncall.Options{Endpoint: hs.URL, MaxAttempts: 1})
	require.NoError(t, err)
	clients := []stepfunctions.API{sdk, ours}
	ctx := context.Background()
	arn := "arn:aws:states:eu-west-1:123456789012:stateMachine:a2a-tasks"
	calls := []struct {
		name   string
		answer string
		call   func(api stepfunctions.API) (any, error)
	}{
		{"StartExecution", `{"executionArn":"arn:aws:states:eu-west-1:123456789012:execution:a2a-tasks:t-1","startDate":1.7e9}`, func(api stepfunctions.API) (any, error) {
			return api.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn), Name: aws.String("t-1"),
				Input: aws.String(`{"taskId":"t-1","quote":"\"<&>\""}`), TraceHeader: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1")})
		}},
		{"SendTaskSuccess", `{}`, func(api stepfunctions.API) (any, error) {
			return api.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("token/+="), Output: aws.String(`{"requestId":"r"}`)})
		}},
		{"SendTaskFailure", `{}`, func(api stepfunctions.API) (any, error) {
			return api.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String("token"), Error: aws.String("TaskCanceled"), Cause: aws.String("canceled")})
		}},
		{"StopExecution", `{"stopDate":1700000000.25}`, func(api stepfunctions.API) (any, error) {
			return api.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arn + ":t-1"), Error: aws.String("TaskCanceled")})
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			got, status, answer = nil, http.StatusOK, c.answer
			var outs []any
			for _, api := range clients {
				out, err := c.call(api)
				require.NoError(t, err)
				outs = append(outs, out)
			}
			require.Len(t, got, 2)
			assert.Equal(t, got[0], got[1], "the requests")
			assert.Equal(t, "AWSStepFunctions."+c.name, got[1].target)
			assert.Equal(t, "eu-west-1/states/aws4_request", got[1].scope)
			assert.Equal(t, "session", got[1].token)
			assertSameOutput(t, outs[0], outs[1])
		})
	}

	// Each code with an operation that declares it (the SDK reads the
	// others as generic errors).
	codes := []struct {
		code  string
		call  int
		match func(error) bool
	}{
		{"ExecutionAlreadyExists", 0, func(err error) bool { var e *types.ExecutionAlreadyExists; return errors.As(err, &e) }},
		{"ExecutionDoesNotExist", 3, func(err error) bool { var e *types.ExecutionDoesNotExist; return errors.As(err, &e) }},
		{"InvalidToken", 1, func(err error) bool { var e *types.InvalidToken; return errors.As(err, &e) }},
		{"TaskDoesNotExist", 2, func(err error) bool { var e *types.TaskDoesNotExist; return errors.As(err, &e) }},
		{"TaskTimedOut", 1, func(err error) bool { var e *types.TaskTimedOut; return errors.As(err, &e) }},
	}
	for _, c := range codes {
		t.Run("error "+c.code, func(t *testing.T) {
			status, answer = http.StatusBadRequest, `{"__type":"com.amazonaws.states#`+c.code+`","message":"it says why"}`
			for i, api := range clients {
				_, err := calls[c.call].call(api)
				require.Error(t, err)
				assert.True(t, c.match(err), "client %d: %v is a %s", i, err, c.code)
				assert.Contains(t, err.Error(), "it says why")
			}
		})
	}
	t.Run("other error", func(t *testing.T) {
		status, answer = http.StatusBadRequest, `{"__type":"com.amazonaws.states#StateMachineDoesNotExist","message":"gone"}`
		_, err := ours.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn)})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "StateMachineDoesNotExist")
		assert.Contains(t, err.Error(), "gone")
	})
}

// assertSameOutput compares the outputs' fields, not their middleware
// metadata (which only the SDK fills).
func assertSameOutput(t *testing.T, sdk, ours any) {
	t.Helper()
	switch s := sdk.(type) {
	case *sfn.StartExecutionOutput:
		o := ours.(*sfn.StartExecutionOutput)
		assert.Equal(t, aws.ToString(s.ExecutionArn), aws.ToString(o.ExecutionArn))
		assert.True(t, aws.ToTime(s.StartDate).Equal(aws.ToTime(o.StartDate)), "%v = %v", s.StartDate, o.StartDate)
	case *sfn.StopExecutionOutput:
		o := ours.(*sfn.StopExecutionOutput)
		assert.True(t, aws.ToTime(s.StopDate).Equal(aws.ToTime(o.StopDate)), "%v = %v", s.StopDate, o.StopDate)
	}
}

// Throttling is tried again: Step Functions answers ThrottlingException
// with HTTP 400 (awscall's tests cover the other kinds of refusal).
func TestRetriesThrottling(t *testing.T) {
	calls := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls < 3 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"com.amazonaws.swf.base.model#ThrottlingException","message":"slow down"}`)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer hs.Close()
	provider := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	c, err := sfncall.New(aws.Config{Region: "eu-west-1", Credentials: provider}, sfncall.Options{Endpoint: hs.URL, MaxBackoff: time.Millisecond})
	require.NoError(t, err)
	_, err = c.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: aws.String("t"), Output: aws.String("{}")})
	require.NoError(t, err)
	assert.Equal(t, 3, calls)
}

// On moto's Step Functions: an execution starts and stops, a second start
// of the same name is ExecutionAlreadyExists, and a made-up task token is
// InvalidToken, as the runner expects of the real service.
func TestOnStepFunctions(t *testing.T) {
	m := sfntest.New(t, nil)
	c, err := sfncall.New(awstest.Config(t), sfncall.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	in := &sfn.StartExecutionInput{StateMachineArn: aws.String(m.ARN), Name: aws.String("t-1"), Input: aws.String(`{"taskId":"t-1","startAt":"await","requestId":"r"}`)}
	out, err := c.StartExecution(ctx, in)
	require.NoError(t, err)
	assert.Contains(t, aws.ToString(out.ExecutionArn), ":t-1")
	assert.NotNil(t, out.StartDate)

	_, err = c.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(m.ARN), Name: aws.String("t-1"), Input: aws.String(`{"other":true}`)})
	var exists *types.ExecutionAlreadyExists
	assert.ErrorAs(t, err, &exists)

	_, err = c.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String("made-up"), Error: aws.String("TaskCanceled")})
	var invalid *types.InvalidToken
	assert.ErrorAs(t, err, &invalid)

	_, err = c.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: out.ExecutionArn, Error: aws.String("TaskCanceled"), Cause: aws.String("test")})
	require.NoError(t, err)
}
