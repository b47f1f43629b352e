package app_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The local server starts with the TTLs a stack may be deployed with
// (CloudFormation cannot refuse them): the interrupt TTL above the task's
// is clamped to it, with one warning that names both.
func TestLocalServerStartsWithInterruptTTLAboveTaskTTL(t *testing.T) {
	s := runLocal(t, map[string]string{"A2A_TASK_TTL_SECONDS": "3600", "A2A_INTERRUPT_REQUEST_TTL_SECONDS": "10800"})
	var warnings []string
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, "configuration corrected") {
			warnings = append(warnings, line)
		}
	}
	require.Len(t, warnings, 1, "one warning: %s", s.logs.String())
	assert.Contains(t, warnings[0], `"level":"WARN"`)
	assert.Contains(t, warnings[0], "A2A_INTERRUPT_REQUEST_TTL_SECONDS=10800")
	assert.Contains(t, warnings[0], "A2A_TASK_TTL_SECONDS=3600")
}
