package functions_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/lambdaemu"
)

// Every function starts with the TTLs the template passes when a stack sets
// TaskTtlSeconds below the default InterruptTtlSeconds (CloudFormation
// cannot compare the two): the interrupt TTL is clamped to the task's with
// one warning naming both, never a failed cold start.
func TestFunctionsStartWithInterruptTTLAboveTaskTTL(t *testing.T) {
	names := functions(t)
	f := newFixture(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range f.env {
				env[k] = v
			}
			if tc := cases[name]; tc.env != nil {
				for k, v := range tc.env(f) {
					env[k] = v
				}
			}
			env["A2A_TASK_TTL_SECONDS"] = "3600"
			env["A2A_INTERRUPT_REQUEST_TTL_SECONDS"] = "10800"
			p, err := lambdaemu.Start(filepath.Join(binDir, name), environ(env), lambdaemu.Options{})
			require.NoError(t, err)
			defer p.Stop()
			_, rep, err := p.Ready(20 * time.Second)
			require.NoError(t, err, "init error report: %s\nlog: %s", rep.Body, p.Stderr())
			// The log reaches the test through a pipe, maybe after the
			// first request for an event.
			require.Eventually(t, func() bool { return strings.Contains(p.Stderr(), "configuration corrected") }, 10*time.Second, 10*time.Millisecond,
				"a warning: %s", p.Stderr())
			warnings := 0
			for _, line := range strings.Split(p.Stderr(), "\n") {
				if strings.Contains(line, "configuration corrected") {
					warnings++
					assert.Contains(t, line, "A2A_INTERRUPT_REQUEST_TTL_SECONDS=10800")
					assert.Contains(t, line, "A2A_TASK_TTL_SECONDS=3600")
				}
			}
			assert.Equal(t, 1, warnings, "one warning naming both: %s", p.Stderr())
		})
	}
}
