package a2a

// The shared metadata contract (metadata.shared.*) of the opencode-a2a
// guide, in one place: the keys, the shape of each member, and the helpers
// the host, the agents, push delivery and the client read and write them
// with. Writers never change the maps they are given (a message's metadata
// may be shared with an agent or a store): they return new ones.
//
//	metadata.shared.interrupt  {request_id, type, phase, details?, resolution?}
//	                           on the status message of an interrupted task
//	                           (phase "asked") and of the message that
//	                           records its answer (phase "resolved")
//	metadata.shared.session    {id}: the agent session a task is bound to
//	metadata.shared.model      {providerID?, modelID}: a model override on a
//	                           request, and the model used on an answer
//	metadata.shared.usage      {input_tokens, output_tokens, total_tokens}
//	                           on an answer that used a model

// Keys of the shared metadata contract.
const (
	SharedKey       = "shared"
	SharedInterrupt = "interrupt"
	SharedSession   = "session"
	SharedModel     = "model"
	SharedUsage     = "usage"
)

// Phases of metadata.shared.interrupt.
const (
	InterruptPhaseAsked    = "asked"
	InterruptPhaseResolved = "resolved"
)

// SharedInterruptInfo is metadata.shared.interrupt: the interrupt a task
// asks for (Phase asked, with its Details) or the record of its answer
// (Phase resolved, with the Resolution).
type SharedInterruptInfo struct {
	RequestID  string
	Type       string
	Phase      string
	Details    map[string]any
	Resolution map[string]any
}

// Shared returns metadata.shared of md, or nil.
func (m Metadata) Shared() Metadata { return m.Object(SharedKey) }

// WithShared returns md with metadata.shared.<key> set to v. md and its
// nested maps are not changed.
func WithShared(md Metadata, key string, v any) Metadata {
	out := make(Metadata, len(md)+1)
	for k, val := range md {
		out[k] = val
	}
	old := md.Shared()
	shared := make(map[string]any, len(old)+1)
	for k, val := range old {
		shared[k] = val
	}
	shared[key] = v
	out[SharedKey] = shared
	return out
}

// WithoutShared returns md without metadata.shared.<key> (md itself when it
// has none). md and its nested maps are not changed.
func WithoutShared(md Metadata, key string) Metadata {
	old := md.Shared()
	if _, ok := old[key]; !ok {
		return md
	}
	out := make(Metadata, len(md))
	for k, val := range md {
		out[k] = val
	}
	shared := make(map[string]any, len(old))
	for k, val := range old {
		if k != key {
			shared[k] = val
		}
	}
	out[SharedKey] = shared
	return out
}

// InterruptOf returns metadata.shared.interrupt of msg, and false when msg
// is nil or has none.
func InterruptOf(msg *Message) (SharedInterruptInfo, bool) {
	if msg == nil {
		return SharedInterruptInfo{}, false
	}
	im := msg.Metadata.Shared().Object(SharedInterrupt)
	if im == nil {
		return SharedInterruptInfo{}, false
	}
	return SharedInterruptInfo{
		RequestID: im.String("request_id"), Type: im.String("type"), Phase: im.String("phase"),
		Details: im.Object("details"), Resolution: im.Object("resolution"),
	}, true
}

// SetInterrupt sets metadata.shared.interrupt on msg (a new metadata map).
func SetInterrupt(msg *Message, in SharedInterruptInfo) {
	v := map[string]any{"request_id": in.RequestID, "type": in.Type, "phase": in.Phase}
	if in.Details != nil {
		v["details"] = in.Details
	}
	if in.Resolution != nil {
		v["resolution"] = in.Resolution
	}
	msg.Metadata = WithShared(msg.Metadata, SharedInterrupt, v)
}

// SessionOf returns metadata.shared.session.id of md, or "".
func SessionOf(md Metadata) string { return md.Shared().Object(SharedSession).String("id") }

// WithSession returns md with metadata.shared.session.id set to session,
// unless session is empty or md names a session already.
func WithSession(md Metadata, session string) Metadata {
	if session == "" || SessionOf(md) != "" {
		return md
	}
	return WithShared(md, SharedSession, map[string]any{"id": session})
}

// ModelOf returns metadata.shared.model of md ({providerID, modelID}), or
// nil.
func ModelOf(md Metadata) Metadata { return md.Shared().Object(SharedModel) }

// UsageOf returns metadata.shared.usage of md, or nil.
func UsageOf(md Metadata) any { return md.Shared()[SharedUsage] }
