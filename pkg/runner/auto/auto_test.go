package auto_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

type recorder struct {
	started  []service.Job
	canceled []service.CancelRequest
}

func (r *recorder) Start(_ context.Context, j service.Job) error {
	r.started = append(r.started, j)
	return nil
}

func (r *recorder) Cancel(_ context.Context, c service.CancelRequest) error {
	r.canceled = append(r.canceled, c)
	return nil
}

func TestRouting(t *testing.T) {
	ctx := context.Background()
	inline, machine := &recorder{}, &recorder{}
	r := auto.New(inline, machine)
	newTask := service.Job{TaskID: "t1", Blocking: true}
	reply := service.Job{TaskID: "t1", Reply: &agent.Reply{RequestID: "r1"}, TaskToken: "tok"}
	require.NoError(t, r.Start(ctx, newTask))
	require.NoError(t, r.Start(ctx, reply))
	require.NoError(t, r.Cancel(ctx, service.CancelRequest{TaskID: "t1"}))
	assert.Equal(t, []service.Job{newTask}, inline.started, "new work runs inline first")
	assert.Equal(t, []service.Job{reply}, machine.started, "a reply resumes the waiting execution")
	assert.Equal(t, []service.CancelRequest{{TaskID: "t1"}}, machine.canceled)
}
