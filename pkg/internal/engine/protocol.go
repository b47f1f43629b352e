package engine

import (
	"maps"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// What the step protocol records in a task's messages, for the steps that
// follow and for the request that waits: the reply a resolved interrupt
// took (metadata.shared.interrupt, phase resolved), and the mark of an
// agent's direct response.

// replyFromStatus rebuilds the reply a resolved interrupt recorded in a
// status message (metadata.shared.interrupt with phase resolved): the inverse
// of Resolution. It returns nil when the message records none.
func replyFromStatus(msg *a2a.Message) *agent.Reply {
	im, ok := a2a.InterruptOf(msg)
	if !ok || im.Phase != a2a.InterruptPhaseResolved {
		return nil
	}
	r := &agent.Reply{RequestID: im.RequestID, Type: im.Type}
	res := im.Resolution
	r.Permission, _ = res["reply"].(string)
	if r.Type == agent.InterruptPermission {
		r.Text, _ = res["message"].(string)
		return r
	}
	r.Rejected, _ = res["rejected"].(bool)
	r.Text, _ = res["text"].(string)
	switch answers := res["answers"].(type) {
	case [][]string:
		r.Answers = answers
	case []any:
		for _, a := range answers {
			var row []string
			if list, ok := a.([]any); ok {
				for _, v := range list {
					if s, ok := v.(string); ok {
						row = append(row, s)
					}
				}
			}
			r.Answers = append(r.Answers, row)
		}
	}
	if r.Answers != nil && r.Text == "" {
		r.Text = AnswersText(r.Answers)
	}
	return r
}

// AnswersText is the text of a question's answers (agent.Reply.Text):
// one line per question, its answers joined by commas. The reply a step
// gets has it whether it came in the request or was rebuilt from the
// status message (replyFromStatus).
func AnswersText(answers [][]string) string {
	lines := make([]string, len(answers))
	for i, a := range answers {
		lines[i] = strings.Join(a, ", ")
	}
	return strings.Join(lines, "\n")
}

// Resolution is the normalized outcome of an interrupt reply, as shown in
// metadata.shared.interrupt.resolution.
func Resolution(r *agent.Reply) map[string]any {
	switch {
	case r.Type == agent.InterruptPermission:
		res := map[string]any{"reply": r.Permission}
		if r.Text != "" {
			res["message"] = r.Text
		}
		return res
	case r.Rejected:
		return map[string]any{"rejected": true}
	case r.Answers != nil:
		return map[string]any{"answers": r.Answers}
	}
	return map[string]any{"text": r.Text}
}

// responseKey marks, in an agent's final status message, a direct response
// (agent.Respond): the send that waits answers with that message. It is
// host bookkeeping, which DirectResponse removes.
const responseKey = "a2a-lambda.response"

// markResponse marks msg as the direct response of its task.
func markResponse(msg *a2a.Message) {
	md := maps.Clone(msg.Metadata)
	if md == nil {
		md = a2a.Metadata{}
	}
	md[responseKey] = "message"
	msg.Metadata = md
}

// DirectResponse is the agent's direct response (agent.Respond) that
// completed t, without the host's mark, or nil when t holds none: the
// request that waits answers with that Message rather than the task.
func DirectResponse(t *a2a.Task) *a2a.Message {
	m := t.Status.Message
	if m == nil || t.Status.State != a2a.TaskStateCompleted || m.Metadata[responseKey] != "message" {
		return nil
	}
	reply := *m
	reply.Metadata = maps.Clone(m.Metadata)
	delete(reply.Metadata, responseKey)
	if len(reply.Metadata) == 0 {
		reply.Metadata = nil
	}
	return &reply
}
