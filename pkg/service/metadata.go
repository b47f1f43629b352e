package service

import (
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
