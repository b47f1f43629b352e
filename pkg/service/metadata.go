package service

import (
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// The shared metadata namespace of the opencode-a2a contracts:
// metadata.shared.interrupt, metadata.shared.usage, metadata.shared.model...
const sharedKey = "shared"

// setShared sets metadata.shared.<key> on md without mutating md or its
// nested maps (they may be shared with the agent or a store).
func setShared(md a2a.Metadata, key string, v any) a2a.Metadata {
	out := make(a2a.Metadata, len(md)+1)
	for k, val := range md {
		out[k] = val
	}
	old := md.Object(sharedKey)
	shared := make(map[string]any, len(old)+1)
	for k, val := range old {
		shared[k] = val
	}
	shared[key] = v
	out[sharedKey] = shared
	return out
}

// setInterruptMetadata sets metadata.shared.interrupt on msg.
func setInterruptMetadata(msg *a2a.Message, v map[string]any) {
	msg.Metadata = setShared(msg.Metadata, "interrupt", v)
}

// interruptMetadata returns metadata.shared.interrupt of msg, or nil.
func interruptMetadata(msg *a2a.Message) map[string]any {
	if msg == nil {
		return nil
	}
	return msg.Metadata.Object(sharedKey).Object("interrupt")
}

// lastUserMessage returns the most recent user message of a history.
func lastUserMessage(h []a2a.Message) *a2a.Message {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == a2a.RoleUser {
			m := h[i]
			return &m
		}
	}
	return nil
}

// replyFromStatus rebuilds the reply a resolved interrupt recorded in a
// status message (metadata.shared.interrupt with phase resolved): the inverse
// of resolution. It returns nil when the message records none.
func replyFromStatus(msg *a2a.Message) *agent.Reply {
	im := interruptMetadata(msg)
	if im == nil || im["phase"] != "resolved" {
		return nil
	}
	r := &agent.Reply{}
	r.RequestID, _ = im["request_id"].(string)
	r.Type, _ = im["type"].(string)
	res, _ := im["resolution"].(map[string]any)
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
		lines := make([]string, len(r.Answers))
		for i, a := range r.Answers {
			lines[i] = strings.Join(a, ", ")
		}
		r.Text = strings.Join(lines, "\n")
	}
	return r
}

// resolution is the normalized outcome of an interrupt reply, as shown in
// metadata.shared.interrupt.resolution.
func resolution(r *agent.Reply) map[string]any {
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
