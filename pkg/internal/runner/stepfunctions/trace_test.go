package stepfunctions_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
)

// recordingSFN records StartExecution's input.
type recordingSFN struct {
	stepfunctions.API
	starts []sfncall.Execution
}

func (r *recordingSFN) StartExecution(_ context.Context, in sfncall.Execution) (sfncall.Started, error) {
	r.starts = append(r.starts, in)
	return sfncall.Started{ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:m:" + in.Name}, nil
}

// A task's execution joins the trace of the invocation that starts it:
// StartExecution carries the invocation's X-Ray trace header, which Step
// Functions hands to the worker's invocations.
func TestExecutionsJoinTheCallersTrace(t *testing.T) {
	api := &recordingSFN{}
	r, err := stepfunctions.New(api, stepfunctions.Options{StateMachineARN: "arn:aws:states:us-east-1:123456789012:stateMachine:m"})
	require.NoError(t, err)
	const header = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", header) //nolint:staticcheck // aws-lambda-go's key
	require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t-1", Resume: &engine.Resume{After: time.Second, Version: 2}}))
	require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "t-2", Resume: &engine.Resume{AwaitRequestID: "r-2"}}))
	require.Len(t, api.starts, 2)
	assert.Equal(t, header, api.starts[0].TraceHeader)
	assert.Empty(t, api.starts[1].TraceHeader, "outside an invocation, no header")
}
