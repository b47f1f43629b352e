package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
)

// updates feeds a sequence of task reads through client.Changes, as Wait
// does, into a progress renderer and returns what it printed.
func render(term bool, width int, reads ...*a2a.Task) string {
	var out bytes.Buffer
	p := newProgress(&out, term, width, time.Now())
	var prev *a2a.Task
	for _, t := range reads {
		p.update(client.Changes(prev, t))
		prev = t
	}
	p.finish(prev)
	return out.String()
}

func read(state a2a.TaskState, status string, parts ...string) *a2a.Task {
	t := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: state}}
	if status != "" {
		t.Status.Message = &a2a.Message{MessageID: status, Parts: []a2a.Part{a2a.TextPart(status)}}
	}
	if len(parts) > 0 {
		a := a2a.Artifact{ArtifactID: "a1", Name: "story"}
		for _, p := range parts {
			a.Parts = append(a.Parts, a2a.TextPart(p))
		}
		t.Artifacts = []a2a.Artifact{a}
	}
	return t
}

func TestProgressTextGrowsInPlace(t *testing.T) {
	reads := []*a2a.Task{
		read(a2a.TaskStateWorking, "Writing..."),
		read(a2a.TaskStateWorking, "Writing...", "Once upon"),
		read(a2a.TaskStateWorking, "Writing...", "Once upon a time"),
		read(a2a.TaskStateWorking, "Writing...", "Once upon a time", "The end."),
		read(a2a.TaskStateCompleted, "Done."),
	}
	reads[4].Artifacts = reads[3].Artifacts

	term := render(true, 80, reads...)
	// The grown line is rewritten in place: cursor up, carriage return.
	assert.Contains(t, term, "── story ──"+reset+"\nOnce upon\n")
	assert.Contains(t, term, "\033[1A\rOnce upon a time\n")
	assert.Contains(t, term, "The end.\n")
	assert.Contains(t, term, "working"+reset+" · ")
	assert.Contains(t, term, " · Writing...")
	assert.True(t, strings.HasSuffix(term, clearLine+"✓ "+bold+"completed"+reset+" after 0.0s: Done.\n"), term)

	plain := render(false, 0, reads...)
	assert.Equal(t, []string{
		"task t1 (context c1)",
		"[0.0s] working: Writing...",
		"[0.0s] story: Once upon",
		"[0.0s] story (continued):  a time",
		"[0.0s] story: The end.",
		"[0.0s] completed: Done.",
	}, strings.Split(strings.TrimSpace(plain), "\n"))
}

func TestProgressNarrowTerminalPrintsGrowthOnANewLine(t *testing.T) {
	term := render(true, 12,
		read(a2a.TaskStateWorking, "", "Once upon"),
		read(a2a.TaskStateWorking, "", "Once upon a time"),
		read(a2a.TaskStateCompleted, "", "Once upon a time"))
	assert.NotContains(t, term, "\033[1A", "a line that would wrap is not rewritten")
	assert.Contains(t, term, "Once upon\n")
	assert.Contains(t, term, clearLine+" a time\n", "the added text on a line of its own")
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0.0s", 3200 * time.Millisecond: "3.2s", 65 * time.Second: "1m05s"} {
		assert.Equal(t, want, elapsed(d))
	}
}
