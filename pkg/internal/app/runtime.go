package app

import (
	"bytes"
	"os"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
)

// localHeapRoom is what the local server's soft memory limit leaves
// beside twice its memory task store's bound.
const localHeapRoom = 128 << 20

// LocalRuntime sizes the local server's collector as the functions' is
// (GOGC startup.GCPercent, 400: it runs a quarter as often as at Go's 100,
// and a blocking send costs a sixth less CPU under load), with a soft
// memory limit where Go's default would have put the heap of a full memory
// task store: twice A2A_MEMORY_MAX_BYTES (storeBytes) and 128 MiB for the
// rest, 640 MiB by default, and at most 90% of the container's memory
// limit (containerLimit, 0 for none: ContainerMemoryLimit). A small live
// heap peaks at five times its size, tens of MB; a large one is held to
// the limit. GOGC and GOMEMLIMIT set in the environment are the
// operator's and left alone.
func LocalRuntime(getenv func(string) string, storeBytes, containerLimit int64) startup.Resources {
	var s startup.Resources
	if getenv("GOGC") == "" {
		s.GCPercent = startup.GCPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		s.MemoryLimit = 2*storeBytes + localHeapRoom
		if containerLimit > 0 {
			s.MemoryLimit = min(s.MemoryLimit, containerLimit/10*9)
		}
	}
	return s
}

// SizeLocalRuntime applies LocalRuntime to this process, for the memory
// task store's bound of getenv's configuration (its default when the
// configuration is refused: the server will say why) and this container's
// memory limit.
func SizeLocalRuntime(getenv func(string) string) {
	bound := int64(config.DefaultMemoryMaxBytes)
	if cfg, err := config.Load(getenv); err == nil {
		bound = cfg.TaskStore.MaxBytes
	}
	LocalRuntime(getenv, bound, ContainerMemoryLimit(os.ReadFile)).Apply()
}

// cgroupMemoryLimits are where a container's memory limit is read: cgroup
// v2's memory.max ("max" for none), else cgroup v1's
// memory.limit_in_bytes (a number near 2^63 for none).
var cgroupMemoryLimits = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// ContainerMemoryLimit returns the memory limit of the process's cgroup
// in bytes, read with readFile, or 0 when it has none or none is found.
func ContainerMemoryLimit(readFile func(string) ([]byte, error)) int64 {
	for _, path := range cgroupMemoryLimits {
		b, err := readFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 {
			return 0 // "max", or no limit
		}
		return n
	}
	return 0
}
