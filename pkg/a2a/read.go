package a2a

import (
	"encoding/json"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// ReadMessageSendParams reads message/send's params (A2A 0.3) in one pass,
// without reflection, into what DecodeMessageSendParams(raw, decode)
// returns when decode is json.Unmarshal, when they have the shape clients
// send: each member named in its own spelling, of its own type. It
// returns false for anything else (a name in another case or escaped, a
// number where a string goes, invalid JSON), which DecodeMessageSendParams
// reads, or refuses with the error that names what is wrong. Metadata, a
// file and a push config are read by encoding/json.
func ReadMessageSendParams(raw json.RawMessage) (MessageSendParams, bool) {
	p := jsonread.NewParser(raw)
	var w sendParamsWire
	if !p.Document(func(key string) bool { return sendParamsMember(&p, &w, key) }) {
		return MessageSendParams{}, false
	}
	m, err := w.Message.message()
	if err != nil {
		return MessageSendParams{}, false
	}
	return MessageSendParams{Message: m, Configuration: w.Configuration, Metadata: w.Metadata}, true
}

// The JSON names of the members of each object read: encoding/json also
// takes a name that matches one of them with case ignored.
var (
	sendParamsFields = []string{"message", "configuration", "metadata"}
	messageFields    = []string{"kind", "role", "parts", "messageId", "taskId", "contextId", "referenceTaskIds", "extensions", "metadata"}
	partFields       = []string{"kind", "text", "file", "data", "metadata", "mediaType", "filename"}
	configFields     = []string{"acceptedOutputModes", "historyLength", "pushNotificationConfig", "blocking"}
)

func sendParamsMember(p *jsonread.Parser, w *sendParamsWire, key string) bool {
	switch key {
	case "message":
		if p.Null() {
			return true
		}
		m := &w.Message
		return p.Object(func(key string) bool { return messageMember(p, m, key) })
	case "configuration":
		if p.Null() {
			w.Configuration = nil
			return true
		}
		if w.Configuration == nil {
			w.Configuration = &MessageSendConfiguration{}
		}
		c := w.Configuration
		return p.Object(func(key string) bool { return configMember(p, c, key) })
	case "metadata":
		return p.Delegate(&w.Metadata)
	}
	return p.Unknown(key, sendParamsFields)
}

func messageMember(p *jsonread.Parser, m *messageWire, key string) bool {
	switch key {
	case "kind":
		return p.StrPtr(&m.Kind)
	case "role":
		return p.Str((*string)(&m.Role))
	case "parts":
		if m.Parts != nil {
			return false // given twice: encoding/json fills the first array
		}
		if p.Null() {
			return true
		}
		parts := []partWire{}
		if !p.Array(func() bool {
			var w partWire
			ok := p.Null() || p.Object(func(key string) bool { return partMember(p, &w, key) })
			parts = append(parts, w)
			return ok
		}) {
			return false
		}
		m.Parts = parts
		return true
	case "messageId":
		return p.Str(&m.MessageID)
	case "taskId":
		return p.Str(&m.TaskID)
	case "contextId":
		return p.Str(&m.ContextID)
	case "referenceTaskIds":
		return p.Strings(&m.ReferenceTaskIDs)
	case "extensions":
		return p.Strings(&m.Extensions)
	case "metadata":
		return p.Delegate(&m.Metadata)
	}
	return p.Unknown(key, messageFields)
}

func partMember(p *jsonread.Parser, w *partWire, key string) bool {
	switch key {
	case "kind":
		return p.StrPtr(&w.Kind)
	case "text":
		return p.StrPtr(&w.Text)
	case "file":
		return p.Delegate(&w.File)
	case "data":
		return p.RawCopy(&w.Data)
	case "metadata":
		return p.Delegate(&w.Metadata)
	case "mediaType":
		return p.Str(&w.MediaType)
	case "filename":
		return p.Str(&w.Filename)
	}
	return p.Unknown(key, partFields)
}

func configMember(p *jsonread.Parser, c *MessageSendConfiguration, key string) bool {
	switch key {
	case "acceptedOutputModes":
		return p.Strings(&c.AcceptedOutputModes)
	case "historyLength":
		return p.IntPtr(&c.HistoryLength)
	case "blocking":
		return p.BoolPtr(&c.Blocking)
	case "pushNotificationConfig":
		return p.Delegate(&c.PushNotificationConfig)
	}
	return p.Unknown(key, configFields)
}

// ReadTaskQueryParams reads tasks/get's params (A2A 0.3) in one pass, as
// json.Unmarshal reads them into TaskQueryParams, when they have the shape
// clients send: each member named in its own spelling, of its own type.
// It returns false for anything else, which encoding/json reads (or
// refuses with the error that names what is wrong). Metadata is read by
// encoding/json.
func ReadTaskQueryParams(raw json.RawMessage) (TaskQueryParams, bool) {
	p := jsonread.NewParser(raw)
	var q TaskQueryParams
	ok := p.Document(func(key string) bool { return taskQueryMember(&p, &q, key) })
	return q, ok
}

var taskQueryFields = []string{"id", "historyLength", "metadata"}

func taskQueryMember(p *jsonread.Parser, q *TaskQueryParams, key string) bool {
	switch key {
	case "id":
		return p.Str(&q.ID)
	case "historyLength":
		return p.IntPtr(&q.HistoryLength)
	case "metadata":
		return p.Delegate(&q.Metadata)
	}
	return p.Unknown(key, taskQueryFields)
}
