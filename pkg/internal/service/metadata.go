package service

import (
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
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
// given on the task is in metadata.feedback. With sessions, a task with no
// metadata of its own shows the session's shared metadata (see
// sessionMetadata), else metadata made for it.
func withRuntimeMetadata(rec *store.TaskRecord, sessions *sessionMetadata) *a2a.Task {
	t := &rec.Task
	if sessions != nil && len(t.Metadata) == 0 && rec.SessionID != "" {
		t.Metadata = sessions.of(rec.SessionID)
	} else {
		t.Metadata = a2a.WithSession(t.Metadata, rec.SessionID)
	}
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

// sessionMetadata holds, for each agent session, the metadata of a task
// that has none of its own: {"shared":{"session":{"id":...}}}, made once
// and shown by every answer about the session's tasks. A client polls a
// task with tasks/get again and again, and making the three small maps for
// each answer took a tenth of a get's CPU, the collector's share counted.
// The reads (tasks/get, tasks/list) share it; a send's answer, about a
// task usually new, has metadata made for it. Answers only read metadata
// (package a2a's functions copy what they change), so they may share it.
// It keeps maxSessionMetadata sessions; past that it starts again.
type sessionMetadata struct {
	mu sync.Mutex
	m  map[string]a2a.Metadata
}

const maxSessionMetadata = 1024

// of returns the metadata that shows session (not empty).
func (c *sessionMetadata) of(session string) a2a.Metadata {
	c.mu.Lock()
	defer c.mu.Unlock()
	md, ok := c.m[session]
	if !ok {
		if c.m == nil || len(c.m) >= maxSessionMetadata {
			c.m = make(map[string]a2a.Metadata)
		}
		md = a2a.WithSession(nil, session)
		c.m[session] = md
	}
	return md
}
