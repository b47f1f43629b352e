// Package agent defines the Agent interface, the extension point through which
// a user plugs their own logic into this host, and the vocabulary an agent
// uses to report progress and outcomes.
//
// An agent works one step at a time. The host calls Step with the task as it
// is stored (history included) and, when the step was triggered by the
// client, the new user message. During the step the agent may report progress
// and artifacts through the Emitter; it ends the step by returning an Outcome:
// finished (completed, failed, rejected), waiting for the client
// (input-required, auth-required), or continue after a delay with a
// checkpoint. The host persists everything, so the next step may run in
// another process (a Lambda invoked by Step Functions) and sees the same task.
//
// The same agent runs unchanged under every runner: goroutines for the local
// server, inline inside a request, or a Step Functions state machine. A
// binary builds it by name from a Registry, whose Factory gets the agent's
// Settings (the environment, then the JSON object of A2A_AGENT_SETTINGS).
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Agent does the work of tasks.
type Agent interface {
	// Info describes the agent; the agent card is built from it.
	Info() Info
	// Step runs one step of a task and says what happens next.
	//
	// ctx is canceled when the task is canceled or the step's deadline
	// passes; a step should return promptly then (its outcome is ignored
	// for a canceled task). A returned error fails the task with a status
	// message that quotes it, so it must not contain secrets.
	Step(ctx context.Context, in StepInput, emit Emitter) (Outcome, error)
}

// Info describes an agent for its card.
type Info struct {
	Name        string
	Description string
	// Version is the agent's own version (not the protocol's).
	Version string
	Skills  []a2a.AgentSkill
	// InputModes and OutputModes are the media types the agent accepts and
	// produces; empty means text/plain.
	InputModes  []string
	OutputModes []string
	Provider    *a2a.AgentProvider
	// DocumentationURL is optional.
	DocumentationURL string
	// ContextHistory is how many messages of the context's earlier tasks
	// the agent wants in StepInput.ContextHistory (a conversation that
	// spans tasks); 0 wants none, which saves reading them.
	ContextHistory int
}

// StepInput is what an agent knows at the start of a step.
type StepInput struct {
	// Task is the stored task: status, full history and artifacts.
	Task a2a.Task
	// Message is the user message that triggered this step: the first
	// message of the task, or the client's reply to an interrupt. It is nil
	// for a step that follows a Continue outcome.
	Message *a2a.Message
	// Reply is set when the step resumes an interrupt: the client's answer,
	// whether it came as a plain message or through an interrupt callback.
	Reply *Reply
	// Checkpoint is the state returned with the previous non-terminal
	// outcome (Continue or an interrupt), or nil.
	Checkpoint json.RawMessage
	// Metadata is the request metadata of the message/send that triggered
	// this step (params.metadata), or nil.
	Metadata a2a.Metadata
	// ContextHistory holds the most recent messages of the earlier tasks of
	// this task's context (the same caller's), oldest first, at most
	// Info.ContextHistory of them.
	ContextHistory []a2a.Message
	// Inbox holds the user messages the client sent to the task while it
	// was submitted or working (message/send with its taskId), oldest
	// first, since the previous step. Each is handed to exactly one step;
	// they are also in Task.History.
	Inbox []a2a.Message
}

// Emitter records progress while a step runs. Every call is persisted before
// it returns. When the task has become terminal (canceled by the client),
// calls return ErrTaskFinished and the step should stop.
type Emitter interface {
	// Status records a progress message (Text builds one); the task stays
	// working. A nil message is an error.
	Status(ctx context.Context, msg *a2a.Message) error
	// Artifact records an artifact. With Append, its parts are appended to
	// the stored artifact with the same ArtifactID (created if missing);
	// otherwise it replaces any artifact with that id. LastChunk marks the
	// artifact complete: push notifications tell webhooks about it at once
	// (set it for an artifact given whole, too). Artifacts of an Outcome
	// are complete.
	Artifact(ctx context.Context, art a2a.Artifact, opts ArtifactOptions) error
}

// ArtifactOptions say how an artifact update combines with what is stored.
type ArtifactOptions struct {
	Append    bool
	LastChunk bool
}

// ErrTaskFinished is returned by an Emitter when the task already reached a
// terminal state (for example the client canceled it).
var ErrTaskFinished = errors.New("task already finished")

// OutcomeKind says how a step ended.
type OutcomeKind string

// Outcome kinds. Each but continue is spelled as the task state it leads
// to, which State relies on.
const (
	OutcomeCompleted     = OutcomeKind(a2a.TaskStateCompleted)
	OutcomeFailed        = OutcomeKind(a2a.TaskStateFailed)
	OutcomeRejected      = OutcomeKind(a2a.TaskStateRejected)
	OutcomeInputRequired = OutcomeKind(a2a.TaskStateInputRequired)
	OutcomeAuthRequired  = OutcomeKind(a2a.TaskStateAuthRequired)
	OutcomeContinue      = OutcomeKind("continue")
)

// State is the task state the outcome leads to; continue keeps the task
// working.
func (k OutcomeKind) State() a2a.TaskState {
	if k == OutcomeContinue {
		return a2a.TaskStateWorking
	}
	return a2a.TaskState(k)
}

// Valid reports whether k is a known outcome.
func (k OutcomeKind) Valid() bool {
	switch k {
	case OutcomeCompleted, OutcomeFailed, OutcomeRejected, OutcomeInputRequired, OutcomeAuthRequired, OutcomeContinue:
		return true
	}
	return false
}

// Outcome is how a step ended. Build it with the functions below.
type Outcome struct {
	Kind OutcomeKind
	// Message is the agent's status message (the answer, the reason of a
	// failure, the question...). Optional.
	Message *a2a.Message
	// After is how long to wait before the next step (Continue only).
	After time.Duration
	// Checkpoint is handed to the next step (Continue and interrupts). It is
	// stored with the task, so keep it small (64 KiB at most).
	Checkpoint json.RawMessage
	// Interrupt describes what the agent waits for (input-required and
	// auth-required).
	Interrupt *Interrupt
	// Artifacts are stored together with the outcome's status change, in
	// one write: cheaper than emitting them first when they are final.
	// Each replaces any stored artifact with the same ArtifactID.
	Artifacts []a2a.Artifact
	// Respond, with a completed outcome and a Message, answers the
	// message/send that waits for this step with the Message itself rather
	// than the task (see Respond).
	Respond bool

	// err is why the outcome could not be built (a checkpoint that does
	// not encode as JSON); see Err.
	err error
}

// Err reports why the outcome could not be built: a checkpoint given to
// Continue or WithCheckpoint that does not encode as JSON. The host fails
// the task with it (an invalid agent response), so a step may return any
// outcome it built without checking.
func (o Outcome) Err() error { return o.err }

// Interrupt types.
const (
	InterruptQuestion   = a2a.InterruptQuestion
	InterruptPermission = a2a.InterruptPermission
	InterruptAuth       = a2a.InterruptAuth
)

// Interrupt describes what an interrupted task waits for.
type Interrupt struct {
	// Type is question, permission or auth.
	Type string
	// Details are shown to the client in metadata.shared.interrupt.details
	// (for example the questions asked, or the permission requested).
	Details map[string]any
}

// Permission replies.
const (
	PermissionOnce   = a2a.PermissionOnce
	PermissionAlways = a2a.PermissionAlways
	PermissionReject = a2a.PermissionReject
)

// Reply is a client's answer to an interrupt.
type Reply struct {
	// RequestID identifies the interrupt.
	RequestID string
	// Type is the interrupt's type.
	Type string
	// Permission is once, always or reject (permission interrupts).
	Permission string
	// Answers are the answers to a question interrupt, one list per question.
	Answers [][]string
	// Rejected is true when the client declined to answer a question.
	Rejected bool
	// Text is the free text of the reply (a plain message, or the optional
	// message of a permission reply).
	Text string
}

// Complete finishes the task successfully, storing artifacts with the final
// status.
func Complete(msg *a2a.Message, artifacts ...a2a.Artifact) Outcome {
	return Outcome{Kind: OutcomeCompleted, Message: msg, Artifacts: artifacts}
}

// Respond finishes the task successfully with msg, and answers a client
// that waits for the step (a blocking message/send) with msg itself, an
// A2A Message result, instead of the task: for agents that reply
// directly rather than run a task. The task still exists (tasks/get shows
// it completed, msg as its status message); a non-blocking send is
// answered with the task, as always.
func Respond(msg *a2a.Message) Outcome {
	return Outcome{Kind: OutcomeCompleted, Message: msg, Respond: true}
}

// Fail finishes the task as failed; msg should say why.
func Fail(msg *a2a.Message) Outcome { return Outcome{Kind: OutcomeFailed, Message: msg} }

// Reject finishes the task as rejected; msg should say why.
func Reject(msg *a2a.Message) Outcome { return Outcome{Kind: OutcomeRejected, Message: msg} }

// Continue keeps the task working and runs the next step after d with
// checkpoint (any JSON-marshalable value, or nil for none), which the next
// step reads with DecodeCheckpoint.
func Continue(d time.Duration, checkpoint any) Outcome {
	o := Outcome{Kind: OutcomeContinue, After: d}
	if checkpoint == nil {
		return o
	}
	return o.WithCheckpoint(checkpoint)
}

// DecodeCheckpoint reads the checkpoint of the previous step into v (a
// pointer, as for json.Unmarshal): the state a WithCheckpoint outcome
// carried. Without a checkpoint (a task's first step) it leaves v as it is.
func (in *StepInput) DecodeCheckpoint(v any) error {
	if len(in.Checkpoint) == 0 {
		return nil
	}
	if err := json.Unmarshal(in.Checkpoint, v); err != nil {
		return fmt.Errorf("bad checkpoint: %w", err)
	}
	return nil
}

// WithCheckpoint returns o carrying v (JSON-marshalable) as the checkpoint
// for the next step: the state an interrupt resumes with, or a Continue's.
// A v that does not encode makes the outcome invalid (see Err).
func (o Outcome) WithCheckpoint(v any) Outcome {
	b, err := json.Marshal(v)
	if err != nil {
		o.Checkpoint, o.err = nil, fmt.Errorf("the checkpoint does not encode as JSON: %w", err)
		return o
	}
	o.Checkpoint = b
	return o
}

// AskQuestion parks the task in input-required with msg as the question.
func AskQuestion(msg *a2a.Message, details map[string]any) Outcome {
	return Outcome{Kind: OutcomeInputRequired, Message: msg, Interrupt: &Interrupt{Type: InterruptQuestion, Details: details}}
}

// AskPermission parks the task in input-required until the client allows
// (once, always) or rejects the action described by msg and details.
func AskPermission(msg *a2a.Message, details map[string]any) Outcome {
	return Outcome{Kind: OutcomeInputRequired, Message: msg, Interrupt: &Interrupt{Type: InterruptPermission, Details: details}}
}

// RequireAuth parks the task in auth-required.
func RequireAuth(msg *a2a.Message, details map[string]any) Outcome {
	return Outcome{Kind: OutcomeAuthRequired, Message: msg, Interrupt: &Interrupt{Type: InterruptAuth, Details: details}}
}

// Conversation returns the messages exchanged in the context, oldest
// first: the earlier tasks' messages the agent asked for
// (StepInput.ContextHistory), then the task's stored history, both without
// the host's bookkeeping (the status message that records an interrupt's
// reply as resolved, metadata.shared.interrupt phase "resolved"), and the
// triggering message when the history does not hold it yet. It is what a
// conversational agent sends its model.
func Conversation(in StepInput) []a2a.Message {
	out := make([]a2a.Message, 0, len(in.ContextHistory)+len(in.Task.History)+1)
	seen := false
	bookkeeping := func(m a2a.Message) bool {
		im, _ := a2a.InterruptOf(&m)
		return im.Phase == a2a.InterruptPhaseResolved && m.Role == a2a.RoleAgent
	}
	for _, m := range in.ContextHistory {
		if !bookkeeping(m) {
			out = append(out, m)
		}
	}
	for _, m := range in.Task.History {
		if in.Message != nil && m.MessageID == in.Message.MessageID {
			seen = true
		}
		if bookkeeping(m) {
			continue
		}
		out = append(out, m)
	}
	if in.Message != nil && !seen {
		out = append(out, *in.Message)
	}
	return out
}

// Text returns an agent message with one text part. The host fills in its
// messageId, taskId and contextId.
func Text(text string) *a2a.Message {
	return &a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
}
