package inline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
)

// Recorder keeps on a task the work it awaits, in bytes it does not read;
// the DynamoDB store is one.
type Recorder interface {
	// Defer records job on the task. It returns store.ErrNotFound for a
	// task that does not exist or expired, and nil, recording nothing, for
	// a terminal task.
	Defer(ctx context.Context, taskID string, job []byte) error
}

// Recorded is the form Record keeps a job in: the message itself is in
// the task's history.
type Recorded struct {
	MessageID string         `json:"messageId,omitempty"`
	Reply     *agent.Reply   `json:"reply,omitempty"`
	Blocking  bool           `json:"blocking,omitempty"`
	Resume    *engine.Resume `json:"resume,omitempty"`
}

// Record is the backlog of the inline execution mode, in which nothing
// runs a step outside a request (sam local): each job is recorded on its
// task, where an operator sees what the task awaits, and the work is left
// to the task's lease, which a sweep takes over once it lapses.
func Record(r Recorder) Backlog { return recordBacklog{r} }

type recordBacklog struct{ r Recorder }

func (b recordBacklog) Defer(ctx context.Context, job engine.Job) error {
	d := Recorded{Reply: job.Reply, Blocking: job.Blocking, Resume: job.Resume}
	if job.Message != nil {
		d.MessageID = job.Message.MessageID
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("inline: encode the job of task %s: %w", job.TaskID, err)
	}
	return b.r.Defer(ctx, job.TaskID, raw)
}
