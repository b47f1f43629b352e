package conformance_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/conformance"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

type emitter struct{ status []string }

func (e *emitter) Status(_ context.Context, m *a2a.Message) error {
	e.status = append(e.status, m.Text())
	return nil
}
func (e *emitter) Artifact(context.Context, a2a.Artifact, agent.ArtifactOptions) error { return nil }

func TestScenariosByMessageID(t *testing.T) {
	ag, err := conformance.New(envtest.Settings(conformance.EnvWorkMS, "7"))
	require.NoError(t, err)
	tests := []struct {
		id       string
		kind     agent.OutcomeKind
		respond  bool
		partKind a2a.PartKind // of the one artifact, "" for none
	}{
		{"tck-complete-task-001", agent.OutcomeCompleted, false, ""},
		{"tck-artifact-text-1", agent.OutcomeCompleted, false, a2a.PartKindText},
		{"tck-artifact-file-1", agent.OutcomeCompleted, false, a2a.PartKindFile},
		{"tck-artifact-file-url-1", agent.OutcomeCompleted, false, a2a.PartKindFile},
		{"tck-artifact-data-1", agent.OutcomeCompleted, false, a2a.PartKindData},
		{"tck-message-response-1", agent.OutcomeCompleted, true, ""},
		{"tck-input-required-1", agent.OutcomeInputRequired, false, ""},
		{"tck-reject-task-1", agent.OutcomeRejected, false, ""},
		{"test-resubscribe-message-id", agent.OutcomeContinue, false, ""},
		{"anything-else", agent.OutcomeCompleted, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			msg := &a2a.Message{MessageID: tt.id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}
			out, err := ag.Step(context.Background(), agent.StepInput{Message: msg}, &emitter{})
			require.NoError(t, err)
			assert.Equal(t, tt.kind, out.Kind)
			assert.Equal(t, tt.respond, out.Respond)
			if tt.kind == agent.OutcomeContinue {
				assert.Equal(t, 7*time.Millisecond, out.After, "works A2A_CONFORMANCE_WORK_MS")
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

	// The steps that follow: a reply to the question, the end of the work.
	out, err := ag.Step(context.Background(), agent.StepInput{Reply: &agent.Reply{Text: "x"}}, &emitter{})
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, out.Kind)
	out, err = ag.Step(context.Background(), agent.StepInput{Checkpoint: json.RawMessage(`{"worked":true}`)}, &emitter{})
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, out.Kind)

	_, err = conformance.New(envtest.Settings(conformance.EnvWorkMS, "soon"))
	assert.ErrorContains(t, err, `A2A_CONFORMANCE_WORK_MS="soon"`)
}
