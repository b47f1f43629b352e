package awstest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// FilterPasses reports whether a stream record passes any of an event
// source mapping's filter patterns (JSON, as FilterCriteria.Filters hold
// them), as Lambda's event filtering decides which records invoke the
// function. It knows the rules templates here use: nested keys, lists of
// accepted values, {"anything-but": [...]} and {"prefix": "..."}; it
// panics on another, so that a pattern it cannot judge fails the test.
func FilterPasses(patterns []string, r events.DynamoDBEventRecord) (bool, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		return false, err
	}
	for _, p := range patterns {
		var pattern map[string]any
		if err := json.Unmarshal([]byte(p), &pattern); err != nil {
			return false, fmt.Errorf("filter pattern %s: %w", p, err)
		}
		if filterMatches(pattern, rec) {
			return true, nil
		}
	}
	return false, nil
}

// filterMatches applies one decoded filter pattern to a record as JSON.
func filterMatches(pattern map[string]any, record map[string]any) bool {
	for key, want := range pattern {
		got, ok := record[key]
		if !ok {
			return false
		}
		switch w := want.(type) {
		case map[string]any:
			sub, ok := got.(map[string]any)
			if !ok || !filterMatches(w, sub) {
				return false
			}
		case []any:
			if !slices.ContainsFunc(w, func(v any) bool { return valueMatches(v, got) }) {
				return false
			}
		default:
			panic(fmt.Sprintf("filter pattern %s: %T is neither an object nor a list of values", key, want))
		}
	}
	return true
}

// valueMatches applies one accepted value of a pattern's list: a value,
// {"anything-but": [values]} or {"prefix": "text"}.
func valueMatches(want, got any) bool {
	if m, ok := want.(map[string]any); ok {
		if prefix, ok := m["prefix"].(string); ok && len(m) == 1 {
			s, isString := got.(string)
			return isString && strings.HasPrefix(s, prefix)
		}
		but, ok := m["anything-but"].([]any)
		if !ok || len(m) != 1 {
			panic(fmt.Sprintf("filter pattern: %v is not a rule this package knows", m))
		}
		return !slices.ContainsFunc(but, func(v any) bool { return valueMatches(v, got) })
	}
	return fmt.Sprint(want) == fmt.Sprint(got)
}
