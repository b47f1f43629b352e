package service

import (
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// The shared metadata namespace of the opencode-a2a contracts:
// metadata.shared.interrupt, metadata.shared.usage, metadata.shared.model...
const sharedKey = "shared"

// Members of metadata.shared.
const (
	sharedSession = "session"
	sharedModel   = "model"
	sharedUsage   = "usage"
)

// requestedSession is the agent session a message/send names in
// metadata.shared.session.id (params.metadata first, then the message's).
func requestedSession(p *a2a.MessageSendParams) string {
	if id := sessionOf(p.Metadata); id != "" {
		return id
	}
	return sessionOf(p.Message.Metadata)
}

func sessionOf(md a2a.Metadata) string {
	return md.Object(sharedKey).Object(sharedSession).String("id")
}

// checkModel enforces the model selection contract: metadata.shared.model
// is an object with providerID and modelID, both non-empty strings, or
// absent. The agent reads it from the request metadata (agent.StepInput).
func checkModel(p *a2a.MessageSendParams) error {
	for _, src := range []struct {
		path string
		md   a2a.Metadata
	}{{"params.metadata", p.Metadata}, {"params.message.metadata", p.Message.Metadata}} {
		v, ok := src.md.Object(sharedKey)[sharedModel]
		if !ok || v == nil {
			continue
		}
		path := src.path + ".shared.model"
		var m a2a.Metadata
		switch t := v.(type) {
		case map[string]any:
			m = t
		case a2a.Metadata:
			m = t
		default:
			return a2a.InvalidParams(path, "must be an object {providerID, modelID}")
		}
		provider, pok := m["providerID"].(string)
		model, mok := m["modelID"].(string)
		_, hasProvider := m["providerID"]
		_, hasModel := m["modelID"]
		switch {
		case (hasProvider && !pok) || (hasModel && !mok):
			return a2a.InvalidParams(path, "providerID and modelID must be strings")
		case (provider == "") != (model == ""):
			return a2a.InvalidParams(path, "providerID and modelID go together: send both or neither")
		}
	}
	return nil
}

// withRuntimeMetadata returns the task as a client reads it: its agent
// session in metadata.shared.session.id; when its
// status message reports token usage (metadata.shared.usage, as the llm
// agent does on its final answer), the task's metadata carries it too, as
// the shared stream hints contract has non-streaming answers do; feedback
// given on the task is in metadata.feedback.
func withRuntimeMetadata(rec *TaskRecord) *a2a.Task {
	t := &rec.Task
	t.Metadata = SessionMetadata(t.Metadata, rec.SessionID)
	var usage any
	if m := t.Status.Message; m != nil && t.Status.State.Settled() {
		usage = m.Metadata.Object(sharedKey)[sharedUsage]
	}
	if usage == nil && rec.Feedback == nil {
		return t
	}
	if usage != nil {
		t.Metadata = setShared(t.Metadata, sharedUsage, usage)
	}
	if f := rec.Feedback; f != nil {
		md := make(a2a.Metadata, len(t.Metadata)+1)
		for k, v := range t.Metadata {
			md[k] = v
		}
		fb := map[string]any{"rating": f.Rating, "createdAt": a2a.FormatTime(f.CreatedAt)}
		if f.Comment != "" {
			fb["comment"] = f.Comment
		}
		md["feedback"] = fb
		t.Metadata = md
	}
	return t
}

// SessionMetadata returns md with metadata.shared.session.id set to
// session, unless session is empty or md names a session already. md is not
// changed; a new map is returned when one is needed.
func SessionMetadata(md a2a.Metadata, session string) a2a.Metadata {
	if session == "" || sessionOf(md) != "" {
		return md
	}
	return setShared(md, sharedSession, map[string]any{"id": session})
}

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
