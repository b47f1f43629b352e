package telemetry

import (
	"encoding/json"
)

// redactedValue prints a composite value as JSON, redacted: fields with
// secret-looking names are replaced, and string values are checked as
// free text.
type redactedValue struct {
	h *Handler
	v any
}

// MarshalJSON encodes the value and redacts the result.
func (r redactedValue) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(r.v)
	if err != nil {
		return json.Marshal(r.h.redactString(err.Error()))
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return raw, nil
	}
	return json.Marshal(r.h.redactTree(tree))
}

func (h *Handler) redactTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if secretKey(k) {
				t[k] = Redacted
			} else {
				t[k] = h.redactTree(x)
			}
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = h.redactTree(x)
		}
		return t
	case string:
		return h.redactString(t)
	}
	return v
}
