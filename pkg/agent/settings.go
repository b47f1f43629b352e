package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// EnvSettings is the variable that holds an agent's settings: a JSON object
// of setting names to values, for example
//
//	{"A2A_LLM_SYSTEM_PROMPT": "Answer in French.", "A2A_LLM_MAX_TOKENS": 512}
//
// On a deployed stack it is the AgentSettings parameter. Like the other
// variables that may hold secrets, it may instead name where the object is
// kept (ssm:/path, secretsmanager:name; see pkg/internal/secrets): the Lambda
// functions read it once, at cold start.
const EnvSettings = "A2A_AGENT_SETTINGS"

// Settings are what an agent is built with: named values, each from the
// environment when set there (not empty), else from the settings object of
// A2A_AGENT_SETTINGS. An agent reads its own by name, with the typed
// getters below; their errors name the setting. The zero Settings has no
// value.
type Settings struct {
	object map[string]json.RawMessage
	getenv func(string) string
}

// NewSettings returns settings that read getenv (nil reads nothing) and
// then object, whose values are JSON (nil holds none). Tests build an
// agent's settings with it.
func NewSettings(getenv func(string) string, object map[string]json.RawMessage) Settings {
	return Settings{object: object, getenv: getenv}
}

// SettingsFrom returns the settings read through getenv: the environment,
// then the object of A2A_AGENT_SETTINGS. An A2A_AGENT_SETTINGS that is not
// a JSON object is an error that quotes none of it (it may hold secrets).
func SettingsFrom(getenv func(string) string) (Settings, error) {
	s := Settings{getenv: getenv}
	raw := strings.TrimSpace(getenv(EnvSettings))
	if raw == "" {
		return s, nil
	}
	if strings.HasPrefix(raw, "ssm:") || strings.HasPrefix(raw, "secretsmanager:") {
		return Settings{}, fmt.Errorf("%s names where the settings are kept, but nothing read it: the Lambda functions resolve such a reference at cold start; elsewhere set the JSON object itself", EnvSettings)
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if err := dec.Decode(&s.object); err != nil || s.object == nil || dec.More() {
		var syntax *json.SyntaxError
		where := ""
		if errors.As(err, &syntax) {
			where = fmt.Sprintf(" (invalid JSON at byte %d)", syntax.Offset)
		}
		return Settings{}, fmt.Errorf(`%s must be a JSON object of settings, such as {"A2A_LLM_MAX_TOKENS": 512}%s`, EnvSettings, where)
	}
	return s, nil
}

// Lookup returns the value of the setting name and whether it is set. A
// string of the settings object is its text; any other JSON value is its
// JSON text (a number's digits, true, an array); null is unset.
func (s Settings) Lookup(name string) (string, bool) {
	if s.getenv != nil {
		if v := s.getenv(name); v != "" {
			return v, true
		}
	}
	raw, ok := s.object[name]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", false
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str, true
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return string(raw), true
	}
	return compact.String(), true
}

// Get returns the value of the setting name, or "" when it is unset.
func (s Settings) Get(name string) string {
	v, _ := s.Lookup(name)
	return v
}

// String returns the setting name without surrounding spaces, or def when
// it is unset or blank.
func (s Settings) String(name, def string) string {
	if v := strings.TrimSpace(s.Get(name)); v != "" {
		return v
	}
	return def
}

// Int returns the setting name as an integer from lo to hi, or def when it
// is unset or blank.
func (s Settings) Int(name string, def, lo, hi int) (int, error) {
	v := strings.TrimSpace(s.Get(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return def, fmt.Errorf("%s=%q must be an integer from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// Bool returns the setting name as true or false (as strconv.ParseBool
// reads them), or def when it is unset or blank.
func (s Settings) Bool(name string, def bool) (bool, error) {
	v := strings.TrimSpace(s.Get(name))
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, fmt.Errorf("%s=%q must be true or false", name, v)
	}
	return b, nil
}

// List returns the setting name as a list: a JSON array of strings in the
// settings object, or comma-separated text; blank items are dropped, and
// an unset setting is an empty list.
func (s Settings) List(name string) []string {
	v, ok := s.Lookup(name)
	if !ok {
		return nil
	}
	var items []string
	if json.Unmarshal([]byte(v), &items) != nil {
		items = strings.Split(v, ",")
	}
	out := items[:0]
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}
