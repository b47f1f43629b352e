package boot_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func TestLambdaResources(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want boot.Resources
	}{
		{"outside Lambda", map[string]string{}, boot.Resources{}},
		{"the smallest size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128"}, boot.Resources{Procs: 1, MemoryLimit: 120795955, GCPercent: 400}},
		{"the template's size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256"}, boot.Resources{Procs: 1, MemoryLimit: 241591910, GCPercent: 400}},
		{"one whole vCPU", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1769"}, boot.Resources{Procs: 1, MemoryLimit: 1669437849, GCPercent: 400}},
		{"a second vCPU begun", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1770"}, boot.Resources{Procs: 2, MemoryLimit: 1670381568, GCPercent: 400}},
		{"the largest size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "10240"}, boot.Resources{Procs: 6, MemoryLimit: 9663676416, GCPercent: 400}},
		{"GOMAXPROCS is the operator's", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "GOMAXPROCS": "2"}, boot.Resources{MemoryLimit: 241591910, GCPercent: 400}},
		{"GOMEMLIMIT is the operator's", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "GOMEMLIMIT": "200MiB"}, boot.Resources{Procs: 1, GCPercent: 400}},
		{"GOGC is the operator's", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "GOGC": "100"}, boot.Resources{Procs: 1, MemoryLimit: 241591910}},
		{"not a size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "lots"}, boot.Resources{}},
		{"no size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "0"}, boot.Resources{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, boot.LambdaResources(func(k string) string { return tt.env[k] }))
		})
	}
}

// Apply lowers GOMAXPROCS, never raises it, and sets the memory limit and
// GOGC.
func TestApplyResources(t *testing.T) {
	procs, limit, gc := runtime.GOMAXPROCS(0), debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs); debug.SetMemoryLimit(limit); debug.SetGCPercent(gc) })

	boot.Resources{Procs: 1, MemoryLimit: 64 << 20, GCPercent: 400}.Apply()
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
	assert.Equal(t, int64(64<<20), debug.SetMemoryLimit(-1))
	assert.Equal(t, 400, debug.SetGCPercent(400))

	boot.Resources{Procs: runtime.NumCPU() + 1}.Apply()
	assert.Equal(t, 1, runtime.GOMAXPROCS(0), "never raised")
	assert.Equal(t, int64(64<<20), debug.SetMemoryLimit(-1), "a zero limit leaves the limit")
	assert.Equal(t, 400, debug.SetGCPercent(400), "a zero percent leaves GOGC")
}
