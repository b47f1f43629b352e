package awstest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// The launcher starts a server that answers, and Stop ends its process.
func TestStartStop(t *testing.T) {
	awstest.Endpoint(t) // skips without moto, like every AWS-backed test
	srv, err := awstest.Start(context.Background())
	require.NoError(t, err)
	resp, err := http.Get(srv.Endpoint() + "/moto-api/config")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 2, resp.StatusCode/100, "status %d", resp.StatusCode)

	srv.Stop()
	assert.False(t, srv.Running())
	_, err = http.Get(srv.Endpoint() + "/moto-api/config")
	assert.Error(t, err, "the stopped server still answers")
}

// Parser mode runs state machines, and the moto 5.2.1 work-around lets more
// than one execution start (without it the second StartExecution is a 500).
func TestStepFunctionsParserMode(t *testing.T) {
	ctx := context.Background()
	client := sfn.NewFromConfig(awstest.Config(t))
	def, err := json.Marshal(map[string]any{
		"StartAt": "Answer",
		"States":  map[string]any{"Answer": map[string]any{"Type": "Pass", "Result": map[string]any{"ok": true}, "End": true}},
	})
	require.NoError(t, err)
	name := awstest.UniqueName(t, "sm")
	name = name[max(0, len(name)-80):] // state machine names have at most 80 characters
	sm, err := client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name:       aws.String(name),
		Definition: aws.String(string(def)),
		RoleArn:    aws.String("arn:aws:iam::123456789012:role/test"),
	})
	require.NoError(t, err)

	var arns []string
	for i := range 3 {
		out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
			StateMachineArn: sm.StateMachineArn,
			Name:            aws.String(fmt.Sprintf("run-%d", i)),
			Input:           aws.String(`{}`),
		})
		require.NoError(t, err, "StartExecution %d", i)
		arns = append(arns, *out.ExecutionArn)
	}
	for _, arn := range arns {
		require.Eventually(t, func() bool {
			out, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
			require.NoError(t, err)
			return out.Status == sfntypes.ExecutionStatusSucceeded
		}, 10*time.Second, 50*time.Millisecond, "execution %s never succeeded", arn)
	}
}

func TestUniqueName(t *testing.T) {
	a, b := awstest.UniqueName(t, "tbl"), awstest.UniqueName(t, "tbl")
	assert.NotEqual(t, a, b)
	assert.Regexp(t, `^tbl-TestUniqueName-[0-9a-f]{8}$`, a)
}

// A retry is not a call: requests are counted by operation unless their
// amz-sdk-request header names an attempt after the first.
func TestOpCounterCountsCallsNotRetries(t *testing.T) {
	var sent int
	c := awstest.NewOpCounter()
	client := c.Client(roundTripper(func(*http.Request) (*http.Response, error) {
		sent++
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
	}))
	for _, tc := range []struct{ target, attempt string }{
		{"AWSStepFunctions.SendTaskFailure", "attempt=1; max=3"},
		{"AWSStepFunctions.SendTaskFailure", "attempt=2; max=3"},
		{"AWSStepFunctions.SendTaskFailure", "attempt=3; max=3"},
		{"AWSStepFunctions.StopExecution", ""},
		{"AWSStepFunctions.StopExecution", "attempt=x"},
		{"DynamoDB_20120810.PutItem", "attempt=1;max=1"},
	} {
		req, err := http.NewRequest(http.MethodPost, "http://aws.invalid/", nil)
		require.NoError(t, err)
		req.Header.Set("X-Amz-Target", tc.target)
		if tc.attempt != "" {
			req.Header.Set("Amz-Sdk-Request", tc.attempt)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Equal(t, 6, sent, "every request is sent")
	assert.Equal(t, map[string]int{"SendTaskFailure": 1, "StopExecution": 2, "PutItem": 1}, c.Counts())
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
