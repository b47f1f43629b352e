// Package sfncall calls the four Step Functions operations the runner of
// pkg/internal/runner/stepfunctions makes (StartExecution, SendTaskSuccess,
// SendTaskFailure, StopExecution) over plain HTTP, signed with the SDK's
// Signature Version 4 signer (pkg/internal/awscall), in the AWS JSON 1.0 protocol
// the API speaks. It stands in for the SDK's Step Functions client, which
// took 262 KB of each function that links it (the send function, built for
// arm64 with -trimpath -ldflags='-s -w': 9.96 MB -> 9.70 MB without it),
// and keeps the client's types: the runner's API interface, its inputs,
// outputs and typed errors (types.ExecutionAlreadyExists...) are the SDK's,
// so the runner cannot tell the two apart. A test compares its requests
// with the SDK client's.
package sfncall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
)

// Options configure a Client (see awscall.Options).
type Options = awscall.Options

// Client is a Step Functions client of the runner's four operations. It is
// safe for concurrent use.
type Client struct {
	api *awscall.Client
}

var _ stepfunctions.API = (*Client)(nil)

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

// StartExecution implements stepfunctions.API.
func (c *Client) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	var out struct {
		ExecutionArn string  `json:"executionArn"`
		StartDate    float64 `json:"startDate"`
	}
	err := c.call(ctx, "StartExecution", struct {
		Input           *string `json:"input,omitempty"`
		Name            *string `json:"name,omitempty"`
		StateMachineArn *string `json:"stateMachineArn,omitempty"`
		TraceHeader     *string `json:"traceHeader,omitempty"`
	}{in.Input, in.Name, in.StateMachineArn, in.TraceHeader}, &out)
	if err != nil {
		return nil, err
	}
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(out.ExecutionArn), StartDate: epoch(out.StartDate)}, nil
}

// SendTaskSuccess implements stepfunctions.API.
func (c *Client) SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	err := c.call(ctx, "SendTaskSuccess", struct {
		Output    *string `json:"output,omitempty"`
		TaskToken *string `json:"taskToken,omitempty"`
	}{in.Output, in.TaskToken}, nil)
	if err != nil {
		return nil, err
	}
	return &sfn.SendTaskSuccessOutput{}, nil
}

// SendTaskFailure implements stepfunctions.API.
func (c *Client) SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, _ ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error) {
	err := c.call(ctx, "SendTaskFailure", struct {
		Cause     *string `json:"cause,omitempty"`
		Error     *string `json:"error,omitempty"`
		TaskToken *string `json:"taskToken,omitempty"`
	}{in.Cause, in.Error, in.TaskToken}, nil)
	if err != nil {
		return nil, err
	}
	return &sfn.SendTaskFailureOutput{}, nil
}

// StopExecution implements stepfunctions.API.
func (c *Client) StopExecution(ctx context.Context, in *sfn.StopExecutionInput, _ ...func(*sfn.Options)) (*sfn.StopExecutionOutput, error) {
	var out struct {
		StopDate float64 `json:"stopDate"`
	}
	err := c.call(ctx, "StopExecution", struct {
		Cause        *string `json:"cause,omitempty"`
		Error        *string `json:"error,omitempty"`
		ExecutionArn *string `json:"executionArn,omitempty"`
	}{in.Cause, in.Error, in.ExecutionArn}, &out)
	if err != nil {
		return nil, err
	}
	return &sfn.StopExecutionOutput{StopDate: epoch(out.StopDate)}, nil
}

// call makes one AWS JSON 1.0 call of operation with in as its body, and
// decodes the answer into out (nil: ignored).
func (c *Client) call(ctx context.Context, operation string, in, out any) error {
	err := c.api.CallJSON(ctx, "1.0", "AWSStepFunctions."+operation, in, out)
	var e *awscall.Error
	if errors.As(err, &e) {
		err = refusal(e)
	}
	if err != nil {
		return fmt.Errorf("sfn %s: %w", operation, err)
	}
	return nil
}

// refusal is Step Functions' error: the typed error of the SDK's types for
// the codes the runner tells apart, e itself otherwise.
func refusal(e *awscall.Error) error {
	m := aws.String(e.Message)
	switch e.Code {
	case "ExecutionAlreadyExists":
		return &types.ExecutionAlreadyExists{Message: m}
	case "ExecutionDoesNotExist":
		return &types.ExecutionDoesNotExist{Message: m}
	case "InvalidToken":
		return &types.InvalidToken{Message: m}
	case "TaskDoesNotExist":
		return &types.TaskDoesNotExist{Message: m}
	case "TaskTimedOut":
		return &types.TaskTimedOut{Message: m}
	}
	return e
}

// epoch is a timestamp of the protocol (seconds since the epoch, with a
// fraction), or nil for none.
func epoch(s float64) *time.Time {
	if s == 0 {
		return nil
	}
	sec, frac := math.Modf(s)
	t := time.Unix(int64(sec), int64(frac*1e9)).UTC()
	return &t
}
