// Package sfncall calls the four Step Functions operations the runner of
// pkg/internal/runner/stepfunctions makes (StartExecution, SendTaskSuccess,
// SendTaskFailure, StopExecution) over plain HTTP, signed with the SDK's
// Signature Version 4 signer (pkg/internal/awscall), in the AWS JSON 1.0 protocol
// the API speaks. It stands in for the SDK's Step Functions client, which
// took 262 KB of each function that links it (the send function, built for
// arm64 with -trimpath -ldflags='-s -w': 9.96 MB -> 9.70 MB without it),
// and for its types, whose packages Go initialized at every cold start of
// the functions that run tasks (GODEBUG=inittrace=1): its inputs are its
// own, and Step Functions' refusals are *awscall.Error, whose Code the
// runner tells apart (awscall.Refused). A test compares its requests with
// the SDK client's.
package sfncall

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

// Options configure a Client (see awscall.Options).
type Options = awscall.Options

// Client is a Step Functions client of the runner's four operations. It is
// safe for concurrent use.
type Client struct {
	api *awscall.Client
}

// service is Step Functions' API; "SFN" is the SDK's service id.
var service = awscall.Service{SigningName: "states", EndpointPrefix: "states", ID: "SFN"}

// New returns a client with cfg's region, credentials and endpoint.
func New(cfg aws.Config, o Options) (*Client, error) {
	api, err := awscall.New(cfg, service, o)
	if err != nil {
		return nil, err
	}
	return &Client{api: api}, nil
}

// Codes of Step Functions' refusals that the runner tells apart.
const (
	ExecutionAlreadyExists = "ExecutionAlreadyExists"
	ExecutionDoesNotExist  = "ExecutionDoesNotExist"
	InvalidToken           = "InvalidToken"
	TaskDoesNotExist       = "TaskDoesNotExist"
	TaskTimedOut           = "TaskTimedOut"
)

// Execution is an execution to start: of the state machine StateMachineARN,
// named Name (unique among the machine's executions for 90 days; empty:
// Step Functions makes one up), with Input (JSON) and the caller's X-Ray
// TraceHeader (empty: none).
type Execution struct {
	StateMachineARN string `json:"stateMachineArn"`
	Name            string `json:"name,omitempty"`
	Input           string `json:"input,omitempty"`
	TraceHeader     string `json:"traceHeader,omitempty"`
}

// Started is a started execution.
type Started struct {
	ExecutionARN string
	StartDate    time.Time
}

// StartExecution starts an execution; one of the same name already started
// with another input is refused with ExecutionAlreadyExists.
func (c *Client) StartExecution(ctx context.Context, in Execution) (Started, error) {
	var out struct {
		ExecutionArn string  `json:"executionArn"`
		StartDate    float64 `json:"startDate"`
	}
	if err := c.call(ctx, "StartExecution", in, &out); err != nil {
		return Started{}, err
	}
	return Started{ExecutionARN: out.ExecutionArn, StartDate: epoch(out.StartDate)}, nil
}

// SendTaskSuccess resumes the execution waiting on taskToken with output
// (JSON).
func (c *Client) SendTaskSuccess(ctx context.Context, taskToken, output string) error {
	return c.call(ctx, "SendTaskSuccess", struct {
		Output    string `json:"output"`
		TaskToken string `json:"taskToken"`
	}{output, taskToken}, nil)
}

// SendTaskFailure fails the task the execution waiting on taskToken waits
// for, with an error name and its cause (empty: none).
func (c *Client) SendTaskFailure(ctx context.Context, taskToken, errorName, cause string) error {
	return c.call(ctx, "SendTaskFailure", struct {
		Cause     string `json:"cause,omitempty"`
		Error     string `json:"error,omitempty"`
		TaskToken string `json:"taskToken"`
	}{cause, errorName, taskToken}, nil)
}

// StopExecution stops the execution executionARN, with an error name and
// its cause (empty: none).
func (c *Client) StopExecution(ctx context.Context, executionARN, errorName, cause string) error {
	return c.call(ctx, "StopExecution", struct {
		Cause        string `json:"cause,omitempty"`
		Error        string `json:"error,omitempty"`
		ExecutionArn string `json:"executionArn"`
	}{cause, errorName, executionARN}, nil)
}

// call makes one AWS JSON 1.0 call of operation with in as its body, and
// decodes the answer into out (nil: ignored).
func (c *Client) call(ctx context.Context, operation string, in, out any) error {
	if err := c.api.CallJSON(ctx, "1.0", "AWSStepFunctions."+operation, in, out); err != nil {
		return fmt.Errorf("sfn %s: %w", operation, err)
	}
	return nil
}

// epoch is a timestamp of the protocol (seconds since the epoch, with a
// fraction), or the zero time for none.
func epoch(s float64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}
