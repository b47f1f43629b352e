package startup

import (
	"runtime"
	"runtime/debug"
)

// Resources is what a process's Go runtime is sized to: a Lambda
// function's (boot.LambdaResources) or the local server's
// (app.LocalRuntime). A zero field leaves the runtime's own choice.
type Resources struct {
	// Procs is GOMAXPROCS. In Lambda, the vCPUs it allots to the
	// function's memory size, one per 1,769 MB begun: Lambda may show the
	// process more CPUs than that (2 on the smaller sizes) while it lets
	// it use only a share of one, which a second P spends on threads woken
	// to find no work (a goroutine's start, a channel's handoff) and on
	// collection running beside the request.
	Procs int
	// MemoryLimit is the soft memory limit (debug.SetMemoryLimit): the
	// collector works harder as the heap nears it, rather than the process
	// being ended when its memory runs out.
	MemoryLimit int64
	// GCPercent is GOGC, GCPercent: the collector's work per request falls
	// as GOGC rises (at 400 it runs a quarter as often as at Go's 100, each
	// run as costly: the live heap is the same); the heap peaks at five
	// times the live heap, and the memory limit caps it.
	GCPercent int
}

// GCPercent is the GOGC of the functions and of the local server unless
// their environment sets one.
const GCPercent = 400

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
