package a2a

import (
	"encoding/json"
	"strconv"
)

// Size estimates, in bytes, of the JSON encoding of protocol objects. Stores
// use them to enforce item size limits without encoding the object: they
// count every string and raw JSON value once plus a fixed allowance per
// object for keys and punctuation, and ignore escaping, so they are close to
// (and rarely above) the real encoded size.

const (
	partOverhead    = 48
	messageOverhead = 96
)

// ApproxSize estimates the encoded size of the metadata, walking the values
// JSON decoding produces without encoding them (a value of another type is
// encoded to be measured).
func (m Metadata) ApproxSize() int {
	if len(m) == 0 {
		return 0
	}
	return objectSize(m)
}

func objectSize(m map[string]any) int {
	n := 2 // {}
	for k, v := range m {
		n += len(k) + 4 + valueSize(v) // "k":v,
	}
	return n
}

// valueSize estimates the encoded size of a JSON value.
func valueSize(v any) int {
	switch v := v.(type) {
	case nil:
		return 4
	case bool:
		return 5
	case string:
		return len(v) + 2
	case json.Number:
		return len(v)
	case json.RawMessage:
		return len(v)
	case float64:
		return len(strconv.FormatFloat(v, 'g', -1, 64))
	case int:
		return len(strconv.Itoa(v))
	case int64:
		return len(strconv.FormatInt(v, 10))
	case map[string]any:
		return objectSize(v)
	case Metadata:
		return objectSize(v)
	case []any:
		n := 2
		for _, e := range v {
			n += valueSize(e) + 1
		}
		return n
	case []string:
		n := 2
		for _, e := range v {
			n += len(e) + 3
		}
		return n
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// ApproxSize estimates the encoded size of the part.
func (p *Part) ApproxSize() int {
	n := partOverhead + len(p.Text) + len(p.Data) + len(p.MediaType) + len(p.Filename) + p.Metadata.ApproxSize()
	if f := p.File; f != nil {
		n += len(f.Bytes) + len(f.URI) + len(f.Name) + len(f.MimeType)
	}
	return n
}

func partsSize(parts []Part) int {
	n := 0
	for i := range parts {
		n += parts[i].ApproxSize()
	}
	return n
}

// ApproxSize estimates the encoded size of the message.
func (m *Message) ApproxSize() int {
	n := messageOverhead + len(m.MessageID) + len(m.TaskID) + len(m.ContextID) + partsSize(m.Parts) + m.Metadata.ApproxSize()
	for _, s := range m.ReferenceTaskIDs {
		n += len(s) + 3
	}
	for _, s := range m.Extensions {
		n += len(s) + 3
	}
	return n
}

// ApproxSize estimates the encoded size of the artifact.
func (a *Artifact) ApproxSize() int {
	n := messageOverhead + len(a.ArtifactID) + len(a.Name) + len(a.Description) + partsSize(a.Parts) + a.Metadata.ApproxSize()
	for _, s := range a.Extensions {
		n += len(s) + 3
	}
	return n
}
