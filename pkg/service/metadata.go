package service

import (
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The shared metadata contract (metadata.shared.*) is package a2a's
// (shared.go); this file is the service's part of it: what it checks on
// the way in and adds on the way out.

// requestedSession is the agent session a message/send names in
// metadata.shared.session.id (params.metadata first, then the message's).
func requestedSession(p *a2a.MessageSendParams) string {
	if id := a2a.SessionOf(p.Metadata); id != "" {
		return id
	}
	return a2a.SessionOf(p.Message.Metadata)
}

// checkModel enforces the model selection contract: metadata.shared.model
// is an object with providerID and modelID, both non-empty strings, or
// absent. The agent reads it from the request metadata (agent.StepInput).
func checkModel(p *a2a.MessageSendParams) error {
	for _, src := range []struct {
		path string
		md   a2a.Metadata
	}{{"params.metadata", p.Metadata}, {"params.message.metadata", p.Message.Metadata}} {
		v, ok := src.md.Shared()[a2a.SharedModel]
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
func withRuntimeMetadata(rec *store.TaskRecord) *a2a.Task {
	t := &rec.Task
	t.Metadata = a2a.WithSession(t.Metadata, rec.SessionID)
	var usage any
	if m := t.Status.Message; m != nil && t.Status.State.Settled() {
		usage = a2a.UsageOf(m.Metadata)
	}
	if usage == nil && rec.Feedback == nil {
		return t
	}
	if usage != nil {
		t.Metadata = a2a.WithShared(t.Metadata, a2a.SharedUsage, usage)
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

// replyFromStatus rebuilds the reply a resolved interrupt recorded in a
// status message (metadata.shared.interrupt with phase resolved): the inverse
// of resolution. It returns nil when the message records none.
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
