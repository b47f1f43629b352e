// Package a2aschema validates JSON documents against the official A2A 1.0
// JSON Schema bundle (a2a.json, a2aproject/A2A tag v1.0.0, commit 1736957,
// embedded unmodified), the strict check a 1.0 client or certification
// run applies. Tests use it to hold every 1.0 response shape to the
// specification rather than to our own reading of it.
package a2aschema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed a2a.json
var bundle []byte

// Definitions of the bundle that responses use.
const (
	AgentCard                   = "Agent Card"
	Task                        = "Task"
	Message                     = "Message"
	SendMessageResponse         = "Send Message Response"
	ListTasksResponse           = "List Tasks Response"
	TaskPushNotificationConfig  = "Task Push Notification Config"
	ListPushConfigsResponse     = "List Task Push Notification Configs Response"
	StreamResponse              = "Stream Response"
	TaskStatusUpdateEvent       = "Task Status Update Event"
	TaskArtifactUpdateEvent     = "Task Artifact Update Event"
	baseURL                     = "https://a2a.example/schemas/"
	googleProtobufDefinitionsOf = "google.protobuf."
)

var (
	once     sync.Once
	schemas  map[string]*jsonschema.Schema
	buildErr error
)

// fileName is the name the bundle's $refs use for a definition: the proto
// message name ("Agent Card" is lf.a2a.v1.AgentCard.jsonschema.json).
func fileName(title string) string {
	name := strings.ReplaceAll(title, " ", "")
	switch name {
	case "Struct", "Timestamp", "Value":
		return googleProtobufDefinitionsOf + name + ".jsonschema.json"
	}
	return "lf.a2a.v1." + name + ".jsonschema.json"
}

func build() {
	var doc struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if buildErr = json.Unmarshal(bundle, &doc); buildErr != nil {
		return
	}
	c := jsonschema.NewCompiler()
	for title, raw := range doc.Definitions {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			buildErr = fmt.Errorf("a2aschema: definition %q: %w", title, err)
			return
		}
		if err := c.AddResource(baseURL+fileName(title), v); err != nil {
			buildErr = fmt.Errorf("a2aschema: definition %q: %w", title, err)
			return
		}
	}
	schemas = map[string]*jsonschema.Schema{}
	for title := range doc.Definitions {
		s, err := c.Compile(baseURL + fileName(title))
		if err != nil {
			buildErr = fmt.Errorf("a2aschema: compile %q: %w", title, err)
			return
		}
		schemas[title] = s
	}
}

// Validate checks doc, a JSON document, against the bundle's definition
// named title (AgentCard, Task...). The error lists every violation.
func Validate(title string, doc []byte) error {
	once.Do(build)
	if buildErr != nil {
		return buildErr
	}
	s, ok := schemas[title]
	if !ok {
		return fmt.Errorf("a2aschema: no definition %q in a2a.json", title)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("a2aschema: %s is not JSON: %w", title, err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("a2aschema: not a valid 1.0 %s: %w", title, err)
	}
	return nil
}
