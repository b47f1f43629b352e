package a2a

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The wire encoding of the hot protocol objects, appended to a byte slice.
//
// encoding/json re-validates and re-compacts the output of every nested
// MarshalJSON method, so a task encoded through nested marshalers has its
// parts compacted three times. These encoders write each object once; the
// MarshalJSON methods call them, and the HTTP edge calls them directly. Free
// form values (metadata, data, card-level objects) still go through
// encoding/json.

// appendString appends s as a JSON string. Like encoding/json, it replaces
// invalid UTF-8 with U+FFFD and escapes U+2028 and U+2029; it does not
// escape <, > and &, which JSON does not require.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendField appends ,"key": (or "key": after an opening brace).
func appendField(b []byte, key string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStringField(b []byte, key, v string) []byte {
	return appendString(appendField(b, key), v)
}

func appendOptString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendStringField(b, key, v)
}

func appendStrings(b []byte, key string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = append(appendField(b, key), '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

func appendMetadata(b []byte, key string, m Metadata) ([]byte, error) {
	if len(m) == 0 {
		return b, nil
	}
	raw, err := json.Marshal(map[string]any(m))
	if err != nil {
		return b, fmt.Errorf("%s: %w", key, err)
	}
	return append(appendField(b, key), raw...), nil
}

// appendRaw appends a raw JSON value, checking that it is valid, since it
// becomes part of a response.
func appendRaw(b []byte, key string, raw json.RawMessage) ([]byte, error) {
	if !json.Valid(raw) {
		return b, fmt.Errorf("%s is not valid JSON", key)
	}
	return append(appendField(b, key), raw...), nil
}

// AppendJSON appends the 0.3 wire form of the part.
func (p *Part) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "kind", string(p.Kind))
	var err error
	switch p.Kind {
	case PartKindText:
		b = appendStringField(b, "text", p.Text)
	case PartKindFile:
		b = append(appendField(b, "file"), '{')
		if f := p.File; f != nil {
			if f.URI != "" {
				b = appendStringField(b, "uri", f.URI)
			} else {
				b = appendStringField(b, "bytes", f.Bytes)
			}
			b = appendOptString(b, "name", f.Name)
			b = appendOptString(b, "mimeType", f.MimeType)
		}
		b = append(b, '}')
	case PartKindData:
		data := p.Data
		if len(data) == 0 {
			data = json.RawMessage("{}")
		}
		if b, err = appendRaw(b, "data", data); err != nil {
			return b, err
		}
	default:
		return b, fmt.Errorf("part kind %q is not one of text, file, data", p.Kind)
	}
	if b, err = appendMetadata(b, "metadata", p.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

func appendParts(b []byte, parts []Part) ([]byte, error) {
	b = append(appendField(b, "parts"), '[')
	var err error
	for i := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = parts[i].AppendJSON(b); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// AppendJSON appends the 0.3 wire form of the message.
func (m *Message) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "role", string(m.Role))
	b, err := appendParts(b, m.Parts)
	if err != nil {
		return b, err
	}
	b = appendStringField(b, "messageId", m.MessageID)
	b = appendOptString(b, "taskId", m.TaskID)
	b = appendOptString(b, "contextId", m.ContextID)
	b = appendStrings(b, "referenceTaskIds", m.ReferenceTaskIDs)
	b = appendStrings(b, "extensions", m.Extensions)
	if b, err = appendMetadata(b, "metadata", m.Metadata); err != nil {
		return b, err
	}
	b = appendStringField(b, "kind", "message")
	return append(b, '}'), nil
}

// AppendJSON appends the wire form of the status.
func (s *TaskStatus) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "state", string(s.State))
	if s.Message != nil {
		var err error
		if b, err = s.Message.AppendJSON(appendField(b, "message")); err != nil {
			return b, err
		}
	}
	b = appendOptString(b, "timestamp", s.Timestamp)
	return append(b, '}'), nil
}

// AppendJSON appends the wire form of the artifact.
func (a *Artifact) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "artifactId", a.ArtifactID)
	b = appendOptString(b, "name", a.Name)
	b = appendOptString(b, "description", a.Description)
	b, err := appendParts(b, a.Parts)
	if err != nil {
		return b, err
	}
	if b, err = appendMetadata(b, "metadata", a.Metadata); err != nil {
		return b, err
	}
	b = appendStrings(b, "extensions", a.Extensions)
	return append(b, '}'), nil
}

// AppendJSON appends the 0.3 wire form of the task.
func (t *Task) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "id", t.ID)
	b = appendStringField(b, "contextId", t.ContextID)
	b, err := t.Status.AppendJSON(appendField(b, "status"))
	if err != nil {
		return b, err
	}
	if len(t.History) > 0 {
		b = append(appendField(b, "history"), '[')
		for i := range t.History {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = t.History[i].AppendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if len(t.Artifacts) > 0 {
		b = append(appendField(b, "artifacts"), '[')
		for i := range t.Artifacts {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = t.Artifacts[i].AppendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if b, err = appendMetadata(b, "metadata", t.Metadata); err != nil {
		return b, err
	}
	b = appendStringField(b, "kind", "task")
	return append(b, '}'), nil
}

// AppendJSON appends the result of tasks/list.
func (r *ListTasksResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"tasks":[`...)
	var err error
	for i := range r.Tasks {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = r.Tasks[i].AppendJSON(b); err != nil {
			return b, err
		}
	}
	b = append(b, ']')
	b = appendStringField(b, "nextPageToken", r.NextPageToken)
	b = fmt.Appendf(b, `,"pageSize":%d,"totalSize":%d}`, r.PageSize, r.TotalSize)
	return b, nil
}
