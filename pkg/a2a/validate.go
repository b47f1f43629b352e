package a2a

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
)

// MaxIDLength is the longest id (messageId, taskId, contextId, a
// referenced task id) a request may carry, in bytes: ids are keys in the
// store and in logs, and a UUID takes 36.
const MaxIDLength = 256

// checkID refuses an id longer than MaxIDLength; path+field is its JSON
// path, joined only for the error.
func checkID(path, field, id string) error {
	if len(id) > MaxIDLength {
		return InvalidParams(path+field, "is %d bytes long; ids are at most %d", len(id), MaxIDLength)
	}
	return nil
}

// checkSession refuses the agent session metadata names when it is longer
// than an id: it is kept with the task (and, on DynamoDB, with its
// context).
func checkSession(path string, md Metadata) error {
	if len(md) == 0 {
		return nil
	}
	return checkID(path, ".shared.session.id", SessionOf(md))
}

// Validate checks the message's required fields and parts. path is the JSON
// path of the message in its request (e.g. "params.message") and prefixes
// every error message.
func (m *Message) Validate(path string) error {
	switch m.Role {
	case RoleUser, RoleAgent:
	case "":
		return InvalidParams(path+".role", "is required (\"user\" or \"agent\")")
	default:
		return InvalidParams(path+".role", "must be \"user\" or \"agent\", got %q", m.Role)
	}
	if strings.TrimSpace(m.MessageID) == "" {
		return InvalidParams(path+".messageId", "is required")
	}
	for _, id := range []struct{ field, v string }{{".messageId", m.MessageID}, {".taskId", m.TaskID}, {".contextId", m.ContextID}} {
		if err := checkID(path, id.field, id.v); err != nil {
			return err
		}
	}
	for i, id := range m.ReferenceTaskIDs {
		if err := checkID(path, ".referenceTaskIds["+strconv.Itoa(i)+"]", id); err != nil {
			return err
		}
	}
	return validateParts(path, ".parts", m.Parts)
}

// ValidateParts checks that parts is non-empty and every part is well formed.
func ValidateParts(path string, parts []Part) error { return validateParts(path, "", parts) }

// validateParts is ValidateParts of the parts at path+field, a JSON path
// joined only for an error: a valid request's validation makes no string.
func validateParts(path, field string, parts []Part) error {
	if len(parts) == 0 {
		return InvalidParams(path+field, "must hold at least one part")
	}
	for i := range parts {
		if err := parts[i].validate(func() string { return path + field + "[" + strconv.Itoa(i) + "]" }); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks that the part has a known kind and exactly the content that
// kind requires.
func (p *Part) Validate(path string) error { return p.validate(func() string { return path }) }

// validate is Validate of the part at the JSON path at returns, which is
// made only for an error: a valid request's validation makes no string.
func (p *Part) validate(at func() string) error {
	switch p.Kind {
	case PartKindText:
		return nil
	case PartKindFile:
		return p.File.validate(func() string { return at() + ".file" })
	case PartKindData:
		if p.Data == nil {
			return InvalidParams(at()+".data", "is required for a data part")
		}
		if !isJSONObject(p.Data) {
			return InvalidParams(at()+".data", "must be a JSON object")
		}
		return nil
	case "":
		return InvalidParams(at()+".kind", "is required (\"text\", \"file\" or \"data\")")
	}
	return InvalidParams(at()+".kind", "must be \"text\", \"file\" or \"data\", got %q", p.Kind)
}

// validate checks the file at the JSON path at returns (a part's .file).
func (f *FileContent) validate(at func() string) error {
	if f == nil {
		return InvalidParams(at(), "is required for a file part")
	}
	switch {
	case f.Bytes != "" && f.URI != "":
		return InvalidParams(at(), "must have exactly one of bytes or uri, not both")
	case f.Bytes == "" && f.URI == "":
		return InvalidParams(at(), "must have exactly one of bytes or uri")
	case f.Bytes != "":
		if _, err := base64.StdEncoding.DecodeString(f.Bytes); err != nil {
			return InvalidParams(at()+".bytes", "is not valid base64: %v", err)
		}
	default:
		u, err := url.Parse(f.URI)
		if err != nil || u.Scheme == "" {
			return InvalidParams(at()+".uri", "must be an absolute URI")
		}
	}
	return nil
}

// Validate checks the artifact's id and parts.
func (a *Artifact) Validate(path string) error {
	if strings.TrimSpace(a.ArtifactID) == "" {
		return InvalidParams(path+".artifactId", "is required")
	}
	return validateParts(path, ".parts", a.Parts)
}

// Validate checks message/send params: a user message with its ids and parts,
// and a sane configuration.
func (p *MessageSendParams) Validate() error {
	if err := p.Message.Validate("params.message"); err != nil {
		return err
	}
	if p.Message.Role != RoleUser {
		return InvalidParams("params.message.role", "must be \"user\" for message/send, got %q", p.Message.Role)
	}
	if err := checkSession("params.metadata", p.Metadata); err != nil {
		return err
	}
	if err := checkSession("params.message.metadata", p.Message.Metadata); err != nil {
		return err
	}
	for i := range p.Message.Parts {
		if pt := &p.Message.Parts[i]; pt.Kind == PartKindText && pt.Text == "" {
			return InvalidParams("params.message.parts["+strconv.Itoa(i)+"].text", "is required for a text part and must not be empty")
		}
	}
	if c := p.Configuration; c != nil {
		if c.HistoryLength != nil && *c.HistoryLength < 0 {
			return InvalidParams("params.configuration.historyLength", "must not be negative, got %d", *c.HistoryLength)
		}
	}
	return nil
}

// Validate checks tasks/get params.
func (p *TaskQueryParams) Validate() error {
	if err := checkTaskID(p.ID); err != nil {
		return err
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return InvalidParams("params.historyLength", "must not be negative, got %d", *p.HistoryLength)
	}
	return nil
}

// Validate checks params that name a task.
func (p *TaskIDParams) Validate() error { return checkTaskID(p.ID) }

// checkTaskID checks the task id of params that name a task: present, and
// no longer than an id may be.
func checkTaskID(id string) error {
	if strings.TrimSpace(id) == "" {
		return InvalidParams("params.id", "is required")
	}
	return checkID("params", ".id", id)
}

// Validate checks tasks/list params.
func (p *ListTasksParams) Validate() error {
	if p.PageSize != nil && (*p.PageSize < 1 || *p.PageSize > MaxPageSize) {
		return InvalidParams("params.pageSize", "must be between 1 and %d, got %d", MaxPageSize, *p.PageSize)
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return InvalidParams("params.historyLength", "must not be negative, got %d", *p.HistoryLength)
	}
	if err := checkID("params", ".contextId", p.ContextID); err != nil {
		return err
	}
	if p.Status != "" && !p.Status.Valid() {
		return InvalidParams("params.status", "%q is not a task state", p.Status)
	}
	if p.StatusTimestampAfter != "" {
		if _, err := ParseTime(p.StatusTimestampAfter); err != nil {
			return InvalidParams("params.statusTimestampAfter", "must be an RFC 3339 timestamp, got %q", p.StatusTimestampAfter)
		}
	}
	return nil
}
