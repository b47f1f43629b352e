package boot

import (
	"runtime"
	"runtime/debug"
	"strconv"
)

// Resources is what a function's Go runtime is sized to in Lambda; a zero
// field leaves the runtime's own choice.
type Resources struct {
	// Procs is GOMAXPROCS: the vCPUs Lambda allots to the function's
	// memory size, one per 1,769 MB begun. Lambda may show the process
	// more CPUs than that (2 on the smaller sizes) while it lets it use
	// only a share of one, which a second P spends on threads woken to
	// find no work (a goroutine's start, a channel's handoff) and on
	// collection running beside the request.
	Procs int
	// MemoryLimit is the soft memory limit (debug.SetMemoryLimit), 90% of
	// the function's memory size: the collector works harder as the heap
	// nears it, rather than Lambda ending the process when it is reached.
	MemoryLimit int64
	// GCPercent is GOGC, LambdaGCPercent: the memory a function is given is
	// paid for whether its heap uses it or not, and the collector's work
	// per invocation falls as GOGC rises (at 400 it runs a quarter as
	// often as at Go's 100, each run as costly: the live heap is the same);
	// the heap peaks at five times the live heap, a few tens of MB, and
	// the memory limit caps it.
	GCPercent int
}

// LambdaGCPercent is a function's GOGC unless its environment sets one.
const LambdaGCPercent = 400

// MBPerVCPU is the memory size at which Lambda allots a whole vCPU.
const MBPerVCPU = 1769

// LambdaResources sizes the runtime of a function whose memory size, in
// MB, Lambda states in AWS_LAMBDA_FUNCTION_MEMORY_SIZE. GOMAXPROCS,
// GOMEMLIMIT or GOGC set in the function's environment are the operator's
// choice and left alone, as is everything outside Lambda (no memory size).
func LambdaResources(getenv func(string) string) Resources {
	mb, err := strconv.Atoi(getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"))
	if err != nil || mb <= 0 {
		return Resources{}
	}
	var r Resources
	if getenv("GOMAXPROCS") == "" {
		r.Procs = (mb + MBPerVCPU - 1) / MBPerVCPU
	}
	if getenv("GOMEMLIMIT") == "" {
		r.MemoryLimit = int64(mb) << 20 * 9 / 10
	}
	if getenv("GOGC") == "" {
		r.GCPercent = LambdaGCPercent
	}
	return r
}

// Apply sizes the runtime to r (a zero field changes nothing). GOMAXPROCS
// is only ever lowered: a machine with fewer CPUs than the allotment keeps
// its own count.
func (r Resources) Apply() {
	if r.Procs > 0 && r.Procs < runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(r.Procs)
	}
	if r.MemoryLimit > 0 {
		debug.SetMemoryLimit(r.MemoryLimit)
	}
	if r.GCPercent > 0 {
		debug.SetGCPercent(r.GCPercent)
	}
}
