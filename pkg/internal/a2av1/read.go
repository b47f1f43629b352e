package a2av1

import (
	"encoding/json"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// readSendRequest reads SendMessage's params into w in one pass, without
// reflection, as json.Unmarshal would, when they have the shape clients
// send: each member named in its own spelling, of its own type. It returns
// false (w then partly written) for anything else, which encoding/json
// reads. Metadata and a push config are read by encoding/json.
func readSendRequest(raw json.RawMessage, w *sendRequestWire) bool {
	p := jsonread.NewParser(raw)
	return p.Document(func(key string) bool { return sendRequestMember(&p, w, key) })
}

// The JSON names of the members of each object read: encoding/json also
// takes a name that matches one of them with case ignored.
var (
	sendRequestFields = []string{"tenant", "message", "configuration", "metadata"}
	messageFields     = []string{"messageId", "contextId", "taskId", "role", "parts", "metadata", "extensions", "referenceTaskIds"}
	partFields        = []string{"text", "raw", "url", "data", "filename", "mediaType", "metadata"}
	sendConfigFields  = []string{"acceptedOutputModes", "taskPushNotificationConfig", "historyLength", "returnImmediately"}
)

func sendRequestMember(p *jsonread.Parser, w *sendRequestWire, key string) bool {
	switch key {
	case "tenant":
		return p.Str(&w.Tenant)
	case "message":
		if p.Null() {
			w.Message = nil
			return true
		}
		if w.Message == nil {
			w.Message = &messageWire{}
		}
		m := w.Message
		return p.Object(func(key string) bool { return messageMember(p, m, key) })
	case "configuration":
		if p.Null() {
			w.Configuration = nil
			return true
		}
		if w.Configuration == nil {
			w.Configuration = &sendConfigWire{}
		}
		c := w.Configuration
		return p.Object(func(key string) bool { return sendConfigMember(p, c, key) })
	case "metadata":
		return p.Delegate(&w.Metadata)
	}
	return p.Unknown(key, sendRequestFields)
}

func messageMember(p *jsonread.Parser, m *messageWire, key string) bool {
	switch key {
	case "messageId":
		return p.Str(&m.MessageID)
	case "contextId":
		return p.Str(&m.ContextID)
	case "taskId":
		return p.Str(&m.TaskID)
	case "role":
		return p.Str(&m.Role)
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
	case "metadata":
		return p.Delegate(&m.Metadata)
	case "extensions":
		return p.Strings(&m.Extensions)
	case "referenceTaskIds":
		return p.Strings(&m.ReferenceTaskIDs)
	}
	return p.Unknown(key, messageFields)
}

func partMember(p *jsonread.Parser, w *partWire, key string) bool {
	switch key {
	case "text":
		return p.StrPtr(&w.Text)
	case "raw":
		return p.StrPtr(&w.Raw)
	case "url":
		return p.StrPtr(&w.URL)
	case "data":
		return p.RawCopy(&w.Data)
	case "filename":
		return p.Str(&w.Filename)
	case "mediaType":
		return p.Str(&w.MediaType)
	case "metadata":
		return p.Delegate(&w.Metadata)
	}
	return p.Unknown(key, partFields)
}

func sendConfigMember(p *jsonread.Parser, c *sendConfigWire, key string) bool {
	switch key {
	case "acceptedOutputModes":
		return p.Strings(&c.AcceptedOutputModes)
	case "taskPushNotificationConfig":
		return p.Delegate(&c.PushConfig)
	case "historyLength":
		return p.IntPtr(&c.HistoryLength)
	case "returnImmediately":
		return p.BoolPtr(&c.ReturnImmediately)
	}
	return p.Unknown(key, sendConfigFields)
}

// readGetTaskRequest reads GetTask's params into w as readSendRequest
// reads SendMessage's: in one pass as json.Unmarshal would, or false for
// what encoding/json is to read.
func readGetTaskRequest(raw json.RawMessage, w *getTaskRequestWire) bool {
	p := jsonread.NewParser(raw)
	return p.Document(func(key string) bool { return getTaskRequestMember(&p, w, key) })
}

var getTaskRequestFields = []string{"tenant", "id", "historyLength"}

func getTaskRequestMember(p *jsonread.Parser, w *getTaskRequestWire, key string) bool {
	switch key {
	case "tenant":
		return p.Str(&w.Tenant)
	case "id":
		return p.Str(&w.ID)
	case "historyLength":
		return p.IntPtr(&w.HistoryLength)
	}
	return p.Unknown(key, getTaskRequestFields)
}
