// Package conformance is the agent to certify a deployment with the
// official A2A conformance kit (A2A_AGENT=conformance): it behaves as the
// kit's reference system under test does, choosing what to do by the
// prefix of the user message's messageId:
//
//	tck-complete-task             completed, agent message "Hello from TCK"
//	tck-artifact-text             one text artifact ("Generated text content"), then completed
//	tck-artifact-file             one file artifact, raw bytes, output.txt, text/plain, then completed
//	tck-artifact-file-url         one file artifact by url, output.txt, text/plain, then completed
//	tck-artifact-data             one data artifact {"key":"value","count":42}, then completed
//	tck-message-response          a Message result instead of a Task (blocking sends)
//	tck-input-required            input-required; the next message completes the task
//	tck-reject-task               rejected
//	test-resubscribe-message-id   working for A2A_CONFORMANCE_WORK_MS (default 4 s), then completed
//	anything else                 completed
package conformance

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// Name is the agent's registry name.
const Name = "conformance"

// Settings and their defaults.
const (
	EnvWorkMS     = "A2A_CONFORMANCE_WORK_MS"
	DefaultWorkMS = 4000
)

// Texts and contents the conformance kit checks.
const (
	Greeting    = "Hello from TCK"
	TextContent = "Generated text content"
	FileName    = "output.txt"
	FileType    = "text/plain"
	FileContent = "Generated file content"
	FileURL     = "https://example.com/output.txt"
	ArtifactID  = "tck-artifact"
)

// The messageId prefixes, longest first where one extends another.
const (
	PrefixComplete        = "tck-complete-task"
	PrefixArtifactText    = "tck-artifact-text"
	PrefixArtifactFileURL = "tck-artifact-file-url"
	PrefixArtifactFile    = "tck-artifact-file"
	PrefixArtifactData    = "tck-artifact-data"
	PrefixMessageResponse = "tck-message-response"
	PrefixInputRequired   = "tck-input-required"
	PrefixReject          = "tck-reject-task"
	PrefixResubscribe     = "test-resubscribe-message-id"
)

// Agent is the conformance agent.
type Agent struct {
	work time.Duration
}

var _ agent.Agent = (*Agent)(nil)

// New builds the agent from A2A_CONFORMANCE_WORK_MS.
func New(s agent.Settings) (agent.Agent, error) {
	ms, err := s.Int(EnvWorkMS, DefaultWorkMS, 0, 3_600_000)
	if err != nil {
		return nil, err
	}
	return &Agent{work: time.Duration(ms) * time.Millisecond}, nil
}

// Info implements agent.Agent.
func (a *Agent) Info() agent.Info {
	return agent.Info{
		Name:        "a2a-lambda conformance agent",
		Description: "Behaves as the A2A conformance kit's reference system under test, chosen by the prefix of the messageId (tck-complete-task, tck-artifact-*, tck-message-response, tck-input-required, tck-reject-task...).",
		Version:     "1.0.0",
		OutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{
			ID: "conformance", Name: "Conformance", Tags: []string{"conformance", "tck"},
			Description: "Answers the conformance kit's scenarios: complete, artifacts (text, file, file url, data), a direct message, input-required, reject.",
			Examples:    []string{"any text, with messageId tck-complete-task-1"},
		}},
	}
}

// checkpoint marks the second step of the resubscribe scenario.
type checkpoint struct {
	Worked bool `json:"worked"`
}

// Step implements agent.Agent.
func (a *Agent) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	if in.Reply != nil || len(in.Checkpoint) > 0 {
		// The input the task asked for, or the end of the long work.
		return agent.Complete(agent.Text(Greeting)), nil
	}
	id := ""
	if in.Message != nil {
		id = in.Message.MessageID
	}
	switch {
	case strings.HasPrefix(id, PrefixArtifactText):
		return complete(a2a.TextPart(TextContent)), nil
	case strings.HasPrefix(id, PrefixArtifactFileURL):
		return complete(a2a.FileURIPart(FileURL, FileName, FileType)), nil
	case strings.HasPrefix(id, PrefixArtifactFile):
		return complete(a2a.FileBytesPart(base64.StdEncoding.EncodeToString([]byte(FileContent)), FileName, FileType)), nil
	case strings.HasPrefix(id, PrefixArtifactData):
		p, err := a2a.DataPart(map[string]any{"key": "value", "count": 42})
		if err != nil {
			return agent.Outcome{}, err
		}
		return complete(p), nil
	case strings.HasPrefix(id, PrefixMessageResponse):
		return agent.Respond(agent.Text(Greeting)), nil
	case strings.HasPrefix(id, PrefixInputRequired):
		return agent.AskQuestion(agent.Text("Please provide input to continue."), nil), nil
	case strings.HasPrefix(id, PrefixReject):
		return agent.Reject(agent.Text("Task rejected: the conformance kit asked for a rejection.")), nil
	case strings.HasPrefix(id, PrefixResubscribe):
		if err := emit.Status(ctx, agent.Text("Working...")); err != nil {
			return agent.Outcome{}, err
		}
		return agent.Continue(a.work, checkpoint{Worked: true}), nil
	}
	return agent.Complete(agent.Text(Greeting)), nil
}

func complete(p a2a.Part) agent.Outcome {
	return agent.Complete(agent.Text(Greeting), a2a.Artifact{ArtifactID: ArtifactID, Name: ArtifactID, Parts: []a2a.Part{p}})
}
