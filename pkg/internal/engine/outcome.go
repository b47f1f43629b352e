package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

func (x *Executor) applyOutcome(ctx context.Context, w *taskWriter, out agent.Outcome) (StepResult, error) {
	if problem := x.checkOutcome(w.owner, &out); problem != "" {
		x.log.WarnContext(ctx, "agent returned an invalid outcome", "taskId", w.taskID, "problem", problem)
		out = agent.Fail(agent.Text("Invalid agent response: " + problem))
	}
	state := out.Kind.State()
	msg := w.agentMessage(out.Message)
	// An outcome's artifacts are whole: each is complete.
	u := store.Update{Artifacts: out.Artifacts, ArtifactLastChunk: len(out.Artifacts) > 0}
	if !state.Terminal() {
		u.Checkpoint = out.Checkpoint
		if u.Checkpoint == nil {
			u.Checkpoint = []byte{} // clear the previous step's
		}
	}
	if state.Interrupted() {
		// Recorded, not shown: Await activates it with its binding.
		in := out.Interrupt
		if in == nil {
			in = &agent.Interrupt{Type: agent.InterruptQuestion}
			if state == a2a.TaskStateAuthRequired {
				in.Type = agent.InterruptAuth
			}
		}
		p := &store.PendingInterrupt{RequestID: uuid.NewString(), Type: in.Type, State: state, Details: nonNilMap(in.Details)}
		if msg == nil {
			msg = w.agentMessage(agent.Text(defaultQuestion(in.Type)))
		}
		a2a.SetInterrupt(msg, a2a.SharedInterruptInfo{RequestID: p.RequestID, Type: p.Type, Phase: a2a.InterruptPhaseAsked, Details: p.Details})
		p.Message = msg
		u.Pending = p
		u.Lease = w.lease(0) // until the interrupt is shown
		if err := w.write(ctx, u); err != nil {
			return w.finish(ctx, err)
		}
		return awaitResult(state, p.RequestID, p.Type, time.Time{}), nil
	}
	if out.Respond {
		markResponse(msg)
	}
	u.Status = &a2a.TaskStatus{State: state, Message: msg, Timestamp: x.now()}
	if !state.Terminal() {
		// The next step must start within the delay and a lease.
		u.Lease = w.lease(out.After)
		u.Lease.Trigger = store.TriggerContinue
	}
	if err := w.write(ctx, u); err != nil {
		return w.finish(ctx, err)
	}
	if state.Terminal() {
		return StepResult{Next: NextDone, State: state}, nil
	}
	return StepResult{Next: NextContinue, After: out.After, State: state}, nil
}

func awaitResult(state a2a.TaskState, requestID, typ string, activeUntil time.Time) StepResult {
	return StepResult{Next: NextAwait, State: state, RequestID: requestID, InterruptType: typ, ActiveUntil: activeUntil}
}

// checkOutcome returns what is wrong with an outcome of owner's task, or
// "".
func (x *Executor) checkOutcome(owner string, out *agent.Outcome) string {
	if !out.Kind.Valid() {
		return fmt.Sprintf("unknown outcome %q", out.Kind)
	}
	if err := out.Err(); err != nil {
		return err.Error()
	}
	if out.Message != nil {
		if err := validateAgentParts("status message", out.Message.Parts); err != "" {
			return err
		}
		if err := x.checkOwned(owner, out.Message.Parts); err != nil {
			return "status message: " + err.Error()
		}
	}
	for i := range out.Artifacts {
		if out.Artifacts[i].Validate("artifact") != nil {
			// Validated again for its message: the path of a valid
			// artifact is not worth a string.
			return out.Artifacts[i].Validate(fmt.Sprintf("artifacts[%d]", i)).(*a2a.Error).Message
		}
		if err := x.checkOwned(owner, out.Artifacts[i].Parts); err != nil {
			return fmt.Sprintf("artifacts[%d]: %v", i, err)
		}
	}
	if out.After < 0 {
		return "continue delay is negative"
	}
	if out.Respond && (out.Kind != agent.OutcomeCompleted || out.Message == nil) {
		return "a direct response (agent.Respond) must complete the task with a message"
	}
	if len(out.Checkpoint) > maxCheckpointBytes {
		return fmt.Sprintf("checkpoint of %d bytes exceeds the limit of %d bytes", len(out.Checkpoint), maxCheckpointBytes)
	}
	return ""
}

// checkOwned reports an agent's part that names a file of another caller
// than owner (see Files.CheckOwned).
func (x *Executor) checkOwned(owner string, parts []a2a.Part) error {
	if x.files == nil {
		return nil
	}
	return x.files.CheckOwned(owner, parts)
}

func validateAgentParts(what string, parts []a2a.Part) string {
	if len(parts) == 0 {
		return what + " has no parts"
	}
	if err := a2a.ValidateParts(what, parts); err != nil {
		return err.(*a2a.Error).Message
	}
	return ""
}

func defaultQuestion(interruptType string) string {
	switch interruptType {
	case agent.InterruptPermission:
		return "The agent asks for permission to continue."
	case agent.InterruptAuth:
		return "The agent needs authentication to continue."
	}
	return "The agent needs more input to continue."
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
