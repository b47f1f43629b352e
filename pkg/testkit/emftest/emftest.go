// Package emftest reads the CloudWatch Embedded Metric Format lines that
// pkg/metrics writes, for tests.
package emftest

import (
	"encoding/json"
	"slices"
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
			for _, f := range values(v) {
				got[k] += f
			}
		}
	}
	return got
}

// values are the numbers of a metric's member: one, or a list of them;
// none for a dimension (a string) or the _aws metadata.
func values(v any) []float64 {
	switch n := v.(type) {
	case float64:
		return []float64{n}
	case []any:
		var fs []float64
		for _, x := range n {
			if f, ok := x.(float64); ok {
				fs = append(fs, f)
			}
		}
		return fs
	}
	return nil
}

// Series gathers the values of each metric by each dimension set it is
// published under, as CloudWatch would: the key is the metric's name and
// its dimensions sorted by name, `Name{Dim=value,...}`
// (`Name{Service=svc}` for the rollup under Service alone).
func Series(docs []map[string]any) map[string][]float64 {
	got := map[string][]float64{}
	for _, d := range docs {
		meta, _ := d["_aws"].(map[string]any)
		dirs, _ := meta["CloudWatchMetrics"].([]any)
		for _, dir := range dirs {
			dm, _ := dir.(map[string]any)
			sets, _ := dm["Dimensions"].([]any)
			ms, _ := dm["Metrics"].([]any)
			for _, m := range ms {
				name, _ := m.(map[string]any)["Name"].(string)
				vs := values(d[name])
				for _, set := range sets {
					var dims []string
					for _, dn := range set.([]any) {
						k, _ := dn.(string)
						v, _ := d[k].(string)
						dims = append(dims, k+"="+v)
					}
					slices.Sort(dims)
					key := name + "{" + strings.Join(dims, ",") + "}"
					got[key] = append(got[key], vs...)
				}
			}
		}
	}
	return got
}
