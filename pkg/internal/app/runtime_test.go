package app_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
)

// The local server's collector runs as the functions' does, held under
// twice its store's bound and 90% of its container's limit, unless the
// operator sized it.
func TestLocalRuntime(t *testing.T) {
	assert.Equal(t, boot.LambdaGCPercent, app.LocalRuntime(func(string) string { return "" }, 0, 0).GCPercent, "the local server's GOGC is the functions'")
	const mib = 1 << 20
	tests := []struct {
		name         string
		env          map[string]string
		store, limit int64
		want         startup.Resources
	}{
		{name: "defaults", store: 256 * mib, want: startup.Resources{GCPercent: 400, MemoryLimit: 640 * mib}},
		{name: "a larger store", store: 1024 * mib, want: startup.Resources{GCPercent: 400, MemoryLimit: 2176 * mib}},
		{name: "a container above the limit", store: 256 * mib, limit: 2048 * mib, want: startup.Resources{GCPercent: 400, MemoryLimit: 640 * mib}},
		{name: "a small container", store: 256 * mib, limit: 512 * mib, want: startup.Resources{GCPercent: 400, MemoryLimit: 512 * mib / 10 * 9}},
		{name: "GOGC set", env: map[string]string{"GOGC": "100"}, store: 256 * mib, want: startup.Resources{MemoryLimit: 640 * mib}},
		{name: "GOMEMLIMIT set", env: map[string]string{"GOMEMLIMIT": "1GiB"}, store: 256 * mib, limit: 512 * mib, want: startup.Resources{GCPercent: 400}},
		{name: "both set", env: map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, store: 256 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := app.LocalRuntime(func(k string) string { return tt.env[k] }, tt.store, tt.limit)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestContainerMemoryLimit(t *testing.T) {
	const v2, v1 = "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	tests := []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{name: "cgroup v2 limit", files: map[string]string{v2: "536870912\n"}, want: 536870912},
		{name: "cgroup v2 without limit", files: map[string]string{v2: "max\n", v1: "1073741824\n"}, want: 0},
		{name: "cgroup v1 limit", files: map[string]string{v1: "1073741824\n"}, want: 1073741824},
		{name: "cgroup v1 without limit", files: map[string]string{v1: "9223372036854771712\n"}, want: 0},
		{name: "unreadable", files: map[string]string{v1: "lots"}, want: 0},
		{name: "no cgroup", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := func(path string) ([]byte, error) {
				if s, ok := tt.files[path]; ok {
					return []byte(s), nil
				}
				return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("no such file")}
			}
			assert.Equal(t, tt.want, app.ContainerMemoryLimit(read))
		})
	}
}
