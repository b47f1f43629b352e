package conformance_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/conformance"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

type emitter struct{ status []string }

func (e *emitter) Status(_ context.Context, m *a2a.Message) error {
	e.status = append(e.status, m.Text())
	return nil
}
func (e *emitter) Artifact(context.Context, a2a.Artifact, agent.ArtifactOptions) error { return nil }

func TestScenariosByMessageID(t *testing.T) {
	ag, err := conformance.New(envtest.Settings(conformance.EnvWorkMS, "7", conformance.EnvDelayMS, "9"))
	require.NoError(t, err)
	tests := []struct {
		id       string
		kind     agent.OutcomeKind
		respond  bool
		partKind a2a.PartKind // of the one artifact, "" for none
		after    time.Duration
		text     string // of the outcome's message, "" for any
	}{
		{"tck-complete-task-001", agent.OutcomeCompleted, false, "", 0, "Hello from TCK"},
		{"tck-artifact-text-1", agent.OutcomeCompleted, false, a2a.PartKindText, 0, ""},
		{"tck-artifact-file-1", agent.OutcomeCompleted, false, a2a.PartKindFile, 0, ""},
		{"tck-artifact-file-url-1", agent.OutcomeCompleted, false, a2a.PartKindFile, 0, ""},
		{"tck-artifact-data-1", agent.OutcomeCompleted, false, a2a.PartKindData, 0, ""},
		{"tck-message-response-1", agent.OutcomeCompleted, true, "", 0, "Direct message response"},
		{"tck-delayed-complete-1", agent.OutcomeContinue, false, "", 9 * time.Millisecond, ""},
		{"tck-input-required-1", agent.OutcomeInputRequired, false, "", 0, ""},
		{"tck-reject-task-1", agent.OutcomeRejected, false, "", 0, ""},
		{"test-resubscribe-message-id", agent.OutcomeContinue, false, "", 7 * time.Millisecond, ""},
		{"anything-else", agent.OutcomeCompleted, false, "", 0, "Hello from TCK"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			msg := &a2a.Message{MessageID: tt.id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}
			out, err := ag.Step(context.Background(), agent.StepInput{Message: msg}, &emitter{})
			require.NoError(t, err)
			assert.Equal(t, tt.kind, out.Kind)
			assert.Equal(t, tt.respond, out.Respond)
			assert.Equal(t, tt.after, out.After, "works A2A_CONFORMANCE_WORK_MS or A2A_CONFORMANCE_DELAY_MS")
			if tt.text != "" {
				require.NotNil(t, out.Message)
				assert.Equal(t, tt.text, out.Message.Text())
			}
			if tt.partKind == "" {
				assert.Empty(t, out.Artifacts)
				return
			}
			require.Len(t, out.Artifacts, 1)
			p := out.Artifacts[0].Parts[0]
			assert.Equal(t, tt.partKind, p.Kind)
			switch tt.id {
			case "tck-artifact-file-1":
				assert.Equal(t, "R2VuZXJhdGVkIGZpbGUgY29udGVudA==", p.File.Bytes)
				assert.Empty(t, p.File.URI)
				assert.Equal(t, "output.txt", p.File.Name)
			case "tck-artifact-file-url-1":
				assert.Equal(t, conformance.FileURL, p.File.URI)
				assert.Empty(t, p.File.Bytes)
			case "tck-artifact-data-1":
				assert.JSONEq(t, `{"key":"value","count":42}`, string(p.Data))
			case "tck-artifact-text-1":
				assert.Equal(t, "Generated text content", p.Text)
			}
		})
	}

	// The steps that follow: a reply to the question, the end of the work
	// (of each scenario that works a while).
	out, err := ag.Step(context.Background(), agent.StepInput{Reply: &agent.Reply{Text: "x"}}, &emitter{})
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, out.Kind)
	for id, want := range map[string]string{"test-resubscribe-message-id": "Hello from TCK", "tck-delayed-complete-2": "Done after delay"} {
		msg := &a2a.Message{MessageID: id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}
		first, err := ag.Step(context.Background(), agent.StepInput{Message: msg}, &emitter{})
		require.NoError(t, err)
		out, err = ag.Step(context.Background(), agent.StepInput{Checkpoint: first.Checkpoint}, &emitter{})
		require.NoError(t, err)
		assert.Equal(t, agent.OutcomeCompleted, out.Kind, id)
		assert.Equal(t, want, out.Message.Text(), id)
	}
	out, err = ag.Step(context.Background(), agent.StepInput{Checkpoint: json.RawMessage(`{"worked":true}`)}, &emitter{})
	require.NoError(t, err)
	assert.Equal(t, "Hello from TCK", out.Message.Text(), "a checkpoint of an earlier version")

	assert.Equal(t, base64.StdEncoding.EncodeToString([]byte(conformance.FileContent)), "R2VuZXJhdGVkIGZpbGUgY29udGVudA==")

	_, err = conformance.New(envtest.Settings(conformance.EnvWorkMS, "soon"))
	assert.ErrorContains(t, err, `A2A_CONFORMANCE_WORK_MS="soon"`)
	_, err = conformance.New(envtest.Settings(conformance.EnvDelayMS, "-1"))
	assert.ErrorContains(t, err, `A2A_CONFORMANCE_DELAY_MS="-1"`)
}
