package localmain_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lambdaRuntime is what the Lambda runtime client links: aws-lambda-go's
// lambda package, with net/rpc and encoding/gob (its RPC mode, which
// make build leaves out with -tags lambda.norpc but go run does not).
var lambdaRuntime = []string{"github.com/aws/aws-lambda-go/lambda", "net/rpc", "encoding/gob"}

// A local server command (every command on localmain: a2a-local,
// countdown-local) links no part of the Lambda runtime client: it never
// talks to the Lambda Runtime API, and Go runs each linked package's
// initialization at every start (encoding/gob's alone took 0.1-0.2 ms of
// the ~2 ms). The start-up it shares with the functions is
// pkg/internal/startup, not pkg/boot.
func TestLocalServerLinksNoLambdaRuntime(t *testing.T) {
	const module = "github.com/a2a-lambda/a2a-lambda/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"cmd/...").CombinedOutput()
	require.NoError(t, err, string(out))
	var servers []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		cmd, deps := f[0], f[1:]
		if !slices.Contains(deps, module+"pkg/app/localmain") {
			continue
		}
		servers = append(servers, strings.TrimPrefix(cmd, module))
		for _, p := range lambdaRuntime {
			assert.False(t, slices.Contains(deps, p), "%s links %s", cmd, p)
		}
		assert.False(t, slices.Contains(deps, module+"pkg/boot"), "%s links pkg/boot, which starts the Lambda runtime", cmd)
	}
	assert.Subset(t, servers, []string{"cmd/a2a-local", "cmd/countdown-local"}, "the local server commands are found by what they link")
}
