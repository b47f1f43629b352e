package sfncall_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
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
	var _ stepfunctions.API = ours
	ctx := context.Background()
	arn := "arn:aws:states:eu-west-1:123456789012:stateMachine:a2a-tasks"
	const started = `{"executionArn":"arn:aws:states:eu-west-1:123456789012:execution:a2a-tasks:t-1","startDate":1700000000.25}`
	// Each call, made by the SDK's client and by ours: both return what
	// they read of the answer.
	calls := []struct {
		name      string
		answer    string
		sdk, ours func() (any, error)
	}{
		{"StartExecution", started, func() (any, error) {
			out, err := sdk.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn), Name: aws.String("t-1"),
				Input: aws.String(`{"taskId":"t-1","quote":"\"<&>\""}`), TraceHeader: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1")})
			if err != nil {
				return nil, err
			}
			return sfncall.Started{ExecutionARN: aws.ToString(out.ExecutionArn), StartDate: aws.ToTime(out.StartDate).UTC()}, nil
		}, func() (any, error) {
			return ours.StartExecution(ctx, sfncall.Execution{StateMachineARN: arn, Name: "t-1",
				Input: `{"taskId":"t-1","quote":"\"<&>\""}`, TraceHeader: "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"})
		}},
		{"StartExecution without a name or a trace", started, func() (any, error) {
			out, err := sdk.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn), Input: aws.String(`{}`)})
			if err != nil {
				return nil, err
			}
			return sfncall.Started{ExecutionARN: aws.ToString(out.ExecutionArn), StartDate: aws.ToTime(out.StartDate).UTC()}, nil
		}, func() (any, error) {
			return ours.StartExecution(ctx, sfncall.Execution{StateMachineARN: arn, Input: `{}`})
		}},
		{"SendTaskSuccess", `{}`, func() (any, error) {
			_, err := sdk.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("token/+="), Output: aws.String(`{"requestId":"r"}`)})
			return nil, err
		}, func() (any, error) {
			return nil, ours.SendTaskSuccess(ctx, "token/+=", `{"requestId":"r"}`)
		}},
		{"SendTaskFailure", `{}`, func() (any, error) {
			_, err := sdk.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String("token"), Error: aws.String("TaskCanceled"), Cause: aws.String("canceled")})
			return nil, err
		}, func() (any, error) {
			return nil, ours.SendTaskFailure(ctx, "token", "TaskCanceled", "canceled")
		}},
		{"StopExecution", `{"stopDate":1700000000.25}`, func() (any, error) {
			_, err := sdk.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arn + ":t-1"), Error: aws.String("TaskCanceled")})
			return nil, err
		}, func() (any, error) {
			return nil, ours.StopExecution(ctx, arn+":t-1", "TaskCanceled", "")
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			got, status, answer = nil, http.StatusOK, c.answer
			want, err := c.sdk()
			require.NoError(t, err)
			out, err := c.ours()
			require.NoError(t, err)
			require.Len(t, got, 2)
			assert.Equal(t, got[0], got[1], "the requests")
			assert.Equal(t, "AWSStepFunctions."+strings.Fields(c.name)[0], got[1].target)
			assert.Equal(t, "eu-west-1/states/aws4_request", got[1].scope)
			assert.Equal(t, "session", got[1].token)
			assert.Equal(t, want, out)
		})
	}
	t.Run("startDate", func(t *testing.T) {
		got, status, answer = nil, http.StatusOK, started
		out, err := ours.StartExecution(ctx, sfncall.Execution{StateMachineARN: arn})
		require.NoError(t, err)
		assert.Equal(t, time.Date(2023, 11, 14, 22, 13, 20, 250_000_000, time.UTC), out.StartDate)
	})

	// Each code with an operation that declares it: the SDK reads it as its
	// typed error, ours as a refusal with that code.
	codes := []struct {
		code  string
		call  int
		match func(error) bool
	}{
		{"ExecutionAlreadyExists", 0, func(err error) bool { var e *types.ExecutionAlreadyExists; return errors.As(err, &e) }},
		{"ExecutionDoesNotExist", 4, func(err error) bool { var e *types.ExecutionDoesNotExist; return errors.As(err, &e) }},
		{"InvalidToken", 2, func(err error) bool { var e *types.InvalidToken; return errors.As(err, &e) }},
		{"TaskDoesNotExist", 3, func(err error) bool { var e *types.TaskDoesNotExist; return errors.As(err, &e) }},
		{"TaskTimedOut", 2, func(err error) bool { var e *types.TaskTimedOut; return errors.As(err, &e) }},
	}
	for _, c := range codes {
		t.Run("error "+c.code, func(t *testing.T) {
			status, answer = http.StatusBadRequest, `{"__type":"com.amazonaws.states#`+c.code+`","message":"it says why"}`
			_, err := calls[c.call].sdk()
			assert.True(t, c.match(err), "the SDK: %v is a %s", err, c.code)
			_, err = calls[c.call].ours()
			require.Error(t, err)
			assert.True(t, awscall.Refused(err, c.code), "ours: %v is a %s", err, c.code)
			assert.False(t, awscall.Refused(err, "Other"+c.code))
			assert.Contains(t, err.Error(), "it says why")
			var e *awscall.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, http.StatusBadRequest, e.StatusCode)
		})
	}
	t.Run("other error", func(t *testing.T) {
		status, answer = http.StatusBadRequest, `{"__type":"com.amazonaws.states#StateMachineDoesNotExist","message":"gone"}`
		_, err := ours.StartExecution(ctx, sfncall.Execution{StateMachineARN: arn})
		require.Error(t, err)
		assert.True(t, awscall.Refused(err, "StateMachineDoesNotExist"))
		assert.Contains(t, err.Error(), "sfn StartExecution: StateMachineDoesNotExist")
		assert.Contains(t, err.Error(), "gone")
		assert.False(t, awscall.Refused(errors.New("StateMachineDoesNotExist"), "StateMachineDoesNotExist"), "only Step Functions' answer is a refusal")
	})
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
	require.NoError(t, c.SendTaskSuccess(context.Background(), "t", "{}"))
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
	in := sfncall.Execution{StateMachineARN: m.ARN, Name: "t-1", Input: `{"taskId":"t-1","startAt":"await","requestId":"r"}`}
	out, err := c.StartExecution(ctx, in)
	require.NoError(t, err)
	assert.Contains(t, out.ExecutionARN, ":t-1")
	assert.False(t, out.StartDate.IsZero())

	_, err = c.StartExecution(ctx, sfncall.Execution{StateMachineARN: m.ARN, Name: "t-1", Input: `{"other":true}`})
	assert.True(t, awscall.Refused(err, sfncall.ExecutionAlreadyExists), "%v", err)

	err = c.SendTaskFailure(ctx, "made-up", "TaskCanceled", "")
	assert.True(t, awscall.Refused(err, sfncall.InvalidToken), "%v", err)

	require.NoError(t, c.StopExecution(ctx, out.ExecutionARN, "TaskCanceled", "test"))
}
