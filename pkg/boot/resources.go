package boot

import (
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
)

// Resources is what a function's Go runtime is sized to in Lambda; a zero
// field leaves the runtime's own choice. The memory limit is 90% of the
// function's memory size; GOGC is LambdaGCPercent: the memory a function
// is given is paid for whether its heap uses it or not.
type Resources = startup.Resources

// LambdaGCPercent is a function's GOGC unless its environment sets one.
const LambdaGCPercent = startup.GCPercent

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
