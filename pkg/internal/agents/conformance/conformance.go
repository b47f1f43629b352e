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
//	tck-message-response          a Message result "Direct message response" instead of a Task (blocking sends)
//	tck-delayed-complete          working for A2A_CONFORMANCE_DELAY_MS (default 2 s), then completed "Done after delay"
//	tck-input-required            input-required; the next message completes the task
//	tck-reject-task               rejected
//	test-resubscribe-message-id   working for A2A_CONFORMANCE_WORK_MS (default 4 s), then completed
//	anything else                 completed
//
// The kit's scenarios (its scenarios/*.feature, from which its own
// reference agent is generated) are the specification of these answers.
package conformance

import (
	"context"
	"encoding/json"
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
	// EnvDelayMS is how long a tck-delayed-complete task works: the kit's
	// "streaming timeout" (2 s), long enough that a non-blocking send
	// returns while the task is still working.
	EnvDelayMS     = "A2A_CONFORMANCE_DELAY_MS"
	DefaultDelayMS = 2000
)

// Texts and contents the conformance kit checks.
const (
	Greeting = "Hello from TCK"
	// DirectText is the text of the Message answering tck-message-response.
	DirectText = "Direct message response"
	// DelayedText completes a tck-delayed-complete task.
	DelayedText = "Done after delay"
	TextContent = "Generated text content"
	FileName    = "output.txt"
	FileType    = "text/plain"
	FileContent = "Generated file content"
	// fileBytes is FileContent in base64.
	fileBytes = "R2VuZXJhdGVkIGZpbGUgY29udGVudA=="
	// DataContent is the data artifact's object.
	DataContent = `{"count":42,"key":"value"}`
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
	PrefixDelayedComplete = "tck-delayed-complete"
	PrefixInputRequired   = "tck-input-required"
	PrefixReject          = "tck-reject-task"
	PrefixResubscribe     = "test-resubscribe-message-id"
)

// Agent is the conformance agent.
type Agent struct {
	work, delay time.Duration
}

var _ agent.Agent = (*Agent)(nil)

// New builds the agent from A2A_CONFORMANCE_WORK_MS and
// A2A_CONFORMANCE_DELAY_MS.
func New(s agent.Settings) (agent.Agent, error) {
	work, err := s.Int(EnvWorkMS, DefaultWorkMS, 0, 3_600_000)
	if err != nil {
		return nil, err
	}
	delay, err := s.Int(EnvDelayMS, DefaultDelayMS, 0, 3_600_000)
	if err != nil {
		return nil, err
	}
	return &Agent{work: time.Duration(work) * time.Millisecond, delay: time.Duration(delay) * time.Millisecond}, nil
}

// Info implements agent.Agent.
func (a *Agent) Info() agent.Info {
	return agent.Info{
		Name:        "a2a-lambda conformance agent",
		Description: "Behaves as the A2A conformance kit's reference system under test, chosen by the prefix of the messageId (tck-complete-task, tck-artifact-*, tck-message-response, tck-delayed-complete, tck-input-required, tck-reject-task...).",
		Version:     "1.0.0",
		OutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{
			ID: "conformance", Name: "Conformance", Tags: []string{"conformance", "tck"},
			Description: "Answers the conformance kit's scenarios: complete, artifacts (text, file, file url, data), a direct message, a delayed completion, input-required, reject.",
			Examples:    []string{"any text, with messageId tck-complete-task-1"},
		}},
	}
}

// checkpoint marks the second step of a scenario that works a while: Text
// completes it ("" is Greeting).
type checkpoint struct {
	Worked bool   `json:"worked"`
	Text   string `json:"text,omitempty"`
}

// Step implements agent.Agent.
func (a *Agent) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	text := Greeting
	if len(in.Checkpoint) > 0 {
		// The end of the long work.
		var c checkpoint
		if json.Unmarshal(in.Checkpoint, &c) == nil && c.Text != "" {
			text = c.Text
		}
		return agent.Complete(agent.Text(text)), nil
	}
	id := ""
	if in.Message != nil && in.Reply == nil { // a reply completes the task
		id = in.Message.MessageID
	}
	switch {
	case strings.HasPrefix(id, PrefixMessageResponse):
		return agent.Respond(agent.Text(DirectText)), nil
	case strings.HasPrefix(id, PrefixDelayedComplete):
		return agent.Continue(a.delay, checkpoint{Worked: true, Text: DelayedText}), nil
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
	out := agent.Complete(agent.Text(text))
	if p := artifactPart(id); p != nil {
		out.Artifacts = []a2a.Artifact{{ArtifactID: ArtifactID, Name: ArtifactID, Parts: []a2a.Part{*p}}}
	}
	return out, nil
}

// artifactParts are the parts of the tck-artifact-* scenarios' one
// artifact, by messageId prefix (longest first where one extends another).
var artifactParts = []struct {
	prefix string
	part   a2a.Part
}{
	{PrefixArtifactText, a2a.TextPart(TextContent)},
	{PrefixArtifactFileURL, a2a.FileURIPart(FileURL, FileName, FileType)},
	{PrefixArtifactFile, a2a.FileBytesPart(fileBytes, FileName, FileType)},
	{PrefixArtifactData, a2a.Part{Kind: a2a.PartKindData, Data: json.RawMessage(DataContent)}},
}

// artifactPart is the one part of the artifact a tck-artifact-* scenario
// completes with, nil for another scenario.
func artifactPart(id string) *a2a.Part {
	for _, a := range artifactParts {
		if strings.HasPrefix(id, a.prefix) {
			p := a.part
			if p.File != nil {
				f := *p.File // each task its own
				p.File = &f
			}
			return &p
		}
	}
	return nil
}
