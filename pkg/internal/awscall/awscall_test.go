package awscall_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

var svc = awscall.Service{SigningName: "states", EndpointPrefix: "states", ID: "SFN"}

// answer is one answer of a fake API: a status, an error type header, a
// body; a status of 0 drops the connection.
type answer struct {
	status    int
	errorType string
	body      string
}

func newClient(t *testing.T, answers []answer, o awscall.Options) (*awscall.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[min(int(calls.Add(1))-1, len(answers)-1)]
		if a.status == 0 {
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
			return
		}
		if a.errorType != "" {
			w.Header().Set("X-Amzn-Errortype", a.errorType)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(hs.Close)
	o.Endpoint = hs.URL
	cfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	c, err := awscall.New(cfg, svc, o)
	require.NoError(t, err)
	return c, &calls
}

// What may pass is tried again, up to the attempts, whatever status AWS
// gives a throttling; a refusal is answered at once, its body readable.
func TestCallJSONTriesAgainWhatMayPass(t *testing.T) {
	ok := answer{http.StatusOK, "", `{"executionArn":"arn"}`}
	tests := []struct {
		name    string
		answers []answer
		calls   int32
		wantErr string
	}{
		{"answered", []answer{ok}, 1, ""},
		{"throttled, HTTP 400, the code in the body", []answer{{400, "", `{"__type":"com.amazonaws.swf.base.model#ThrottlingException","message":"Rate exceeded"}`}, ok}, 2, ""},
		{"throttled, HTTP 400, the code in the header", []answer{{400, "ThrottlingException:http://internal", `{}`}, ok}, 2, ""},
		{"throttled, HTTP 429", []answer{{429, "", `{"__type":"TooManyRequestsException"}`}, ok}, 2, ""},
		{"timed out on AWS's side", []answer{{400, "", `{"__type":"RequestTimeoutException"}`}, ok}, 2, ""},
		{"failed on AWS's side", []answer{{500, "", `{"__type":"InternalFailure"}`}, {503, "", ``}, ok}, 3, ""},
		{"the connection dropped", []answer{{}, ok}, 2, ""},
		{"throttled every time", []answer{{400, "", `{"__type":"ThrottlingException","message":"Rate exceeded"}`}}, 3, "ThrottlingException (HTTP 400): Rate exceeded (after 3 attempts)"},
		{"refused", []answer{{400, "", `{"__type":"ExecutionAlreadyExists","message":"exists"}`}}, 1, "ExecutionAlreadyExists (HTTP 400): exists"},
		{"refused without a body", []answer{{403, "", ``}}, 1, "Forbidden (HTTP 403)"},
		{"an answer that is not JSON", []answer{{200, "", `<html>`}}, 1, "decode the answer"},
		{"the connection dropped every time", []answer{{}}, 3, "(after 3 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, calls := newClient(t, tt.answers, awscall.Options{MaxBackoff: time.Millisecond})
			var out struct {
				ExecutionArn string `json:"executionArn"`
			}
			err := c.CallJSON(context.Background(), "1.0", "AWSStepFunctions.StartExecution", map[string]string{"name": "n"}, &out)
			assert.Equal(t, tt.calls, calls.Load())
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "arn", out.ExecutionArn)
		})
	}
}

// A retry says which attempt of its call it is, as the SDK's clients do,
// so that it is told from a second call; a first attempt goes without.
func TestAttemptsAreNumbered(t *testing.T) {
	var seen []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get(awscall.AttemptHeader))
		if len(seen) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(hs.Close)
	cfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	c, err := awscall.New(cfg, svc, awscall.Options{Endpoint: hs.URL, MaxBackoff: time.Millisecond, MaxAttempts: 4})
	require.NoError(t, err)
	require.NoError(t, c.CallJSON(context.Background(), "1.0", "AWSStepFunctions.StopExecution", map[string]string{}, nil))
	require.NoError(t, c.CallJSON(context.Background(), "1.0", "AWSStepFunctions.StopExecution", map[string]string{}, nil))
	assert.Equal(t, []string{"", "attempt=2; max=4", "attempt=3; max=4", ""}, seen)
}

// A refusal the caller reads is an *awscall.Error with the API's code.
func TestRefusalIsAnError(t *testing.T) {
	c, _ := newClient(t, []answer{{400, "", `{"__type":"ParameterNotFound","message":""}`}}, awscall.Options{})
	err := c.CallJSON(context.Background(), "1.1", "AmazonSSM.GetParameter", map[string]string{"Name": "p"}, nil)
	var e *awscall.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "ParameterNotFound", e.Code)
	assert.Equal(t, 400, e.StatusCode)
	assert.False(t, e.RetryableError())
	assert.True(t, awscall.Refused(err, "Other", "ParameterNotFound"))
	assert.True(t, awscall.Refused(fmt.Errorf("read the parameter: %w", err), "ParameterNotFound"), "wrapped")
	assert.False(t, awscall.Refused(err, "Other"))
	assert.False(t, awscall.Refused(errors.New("ParameterNotFound"), "ParameterNotFound"), "only an API's answer is a refusal")
}

// The waits between attempts are the client's clock's: each is at most the
// base delay doubled per attempt, capped; a context that ends during one
// ends the call.
func TestWaitsFollowTheClock(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	throttled := answer{400, "", `{"__type":"ThrottlingException"}`}
	c, calls := newClient(t, []answer{throttled, throttled, {200, "", `{}`}}, awscall.Options{Clock: clk, BaseDelay: time.Second, MaxBackoff: time.Minute})
	done := make(chan error, 1)
	go func() {
		done <- c.CallJSON(context.Background(), "1.0", "AWSStepFunctions.StopExecution", map[string]string{}, nil)
	}()
	// Before the second attempt it waits at most 1 s, before the third 2 s.
	for i, most := range []time.Duration{time.Second, 2 * time.Second} {
		require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
		assert.EqualValues(t, i+1, calls.Load())
		clk.Advance(most)
	}
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not end once the clock passed its waits")
	}
	assert.EqualValues(t, 3, calls.Load())

	ctx, cancel := context.WithCancel(context.Background())
	c, _ = newClient(t, []answer{throttled}, awscall.Options{Clock: clk, BaseDelay: time.Hour, MaxBackoff: time.Hour})
	go func() { done <- c.CallJSON(ctx, "1.0", "AWSStepFunctions.StopExecution", map[string]string{}, nil) }()
	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorContains(t, err, "ThrottlingException")
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not end with its context")
	}
}

// An answer is read whole up to the limit; a larger one is an error
// saying so, not JSON cut short.
func TestReadAnswer(t *testing.T) {
	answer := func(body string) *http.Response {
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(body))}
	}
	b, err := awscall.ReadAnswer(answer(`{"a":1}`), 7)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(b))
	_, err = awscall.ReadAnswer(answer(`{"a":12}`), 7)
	assert.EqualError(t, err, "the answer is larger than 7 bytes")
}

// CallJSON takes an empty answer for an empty result and reads 1 MiB at
// most; CallJSONWithin reads up to its limit and fails an empty answer
// (one that would read as an empty result, such as a stream shard's end).
func TestCallJSONWithin(t *testing.T) {
	big := `{"executionArn":"` + strings.Repeat("a", 2<<20) + `"}`
	for _, tc := range []struct {
		name, answer string
		within       bool
		wantErr      string
	}{
		{"empty, CallJSON", "", false, ""},
		{"empty, CallJSONWithin", "", true, "decode the answer"},
		{"2 MiB, CallJSON", big, false, "larger than 1048576 bytes"},
		{"2 MiB, CallJSONWithin 4 MiB", big, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newClient(t, []answer{{http.StatusOK, "", tc.answer}}, awscall.Options{})
			var out struct {
				ExecutionArn string `json:"executionArn"`
			}
			call := func() error {
				return c.CallJSON(context.Background(), "1.0", "AWSStepFunctions.StartExecution", map[string]string{}, &out)
			}
			if tc.within {
				call = func() error {
					return c.CallJSONWithin(context.Background(), "1.0", "AWSStepFunctions.StartExecution", map[string]string{}, &out, 4<<20)
				}
			}
			err := call()
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(tc.answer) > 0, out.ExecutionArn != "")
		})
	}
}
