package cli

import (
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
)

// version prints the version of this module the command was built from
// (buildinfo.Version): "a2a-lambda v1.2.3".
func (r *runner) version(args []string) int {
	fs := r.baseFlags()
	if _, code, ok := r.parse(fs, args, 0, 0); !ok {
		return code
	}
	fmt.Fprintln(r.out, "a2a-lambda", buildinfo.Version())
	return ExitOK
}
