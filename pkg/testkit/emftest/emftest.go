// Package emftest reads the CloudWatch Embedded Metric Format lines that
// pkg/metrics writes, for tests.
package emftest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Documents decodes out, one JSON document per line (empty: none).
func Documents(t testing.TB, out []byte) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &d), "an EMF line is JSON: %s", l)
		docs = append(docs, d)
	}
	return docs
}

// Totals sums each metric's values over docs: a number, or the values of
// a metric written several times in one line. Dimensions (strings) and the
// _aws metadata are not metrics.
func Totals(docs []map[string]any) map[string]float64 {
	got := map[string]float64{}
	for _, d := range docs {
		for k, v := range d {
			switch n := v.(type) {
			case float64:
				got[k] += n
			case []any:
				for _, x := range n {
					if f, ok := x.(float64); ok {
						got[k] += f
					}
				}
			}
		}
	}
	return got
}
