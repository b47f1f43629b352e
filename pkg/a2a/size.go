package a2a

import "encoding/json"

// Size estimates, in bytes, of the JSON encoding of protocol objects. Stores
// use them to enforce item size limits without encoding the object: they
// count every string and raw JSON value once plus a fixed allowance per
// object for keys and punctuation, and ignore escaping, so they are close to
// (and rarely above) the real encoded size.

const (
	partOverhead    = 48
	messageOverhead = 96
)

// ApproxSize estimates the encoded size of the metadata.
func (m Metadata) ApproxSize() int {
	if len(m) == 0 {
		return 0
	}
	b, err := json.Marshal(m)
	if err != nil {
		return 0
	}
	return len(b)
}

// ApproxSize estimates the encoded size of the part.
func (p *Part) ApproxSize() int {
	n := partOverhead + len(p.Text) + len(p.Data) + p.Metadata.ApproxSize()
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
