package localmain_test

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/a2a-lambda/a2a-lambda/"

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
	servers := localServers(t)
	for cmd, deps := range servers {
		for _, p := range lambdaRuntime {
			assert.False(t, slices.Contains(deps, p), "%s links %s", cmd, p)
		}
		assert.False(t, slices.Contains(deps, module+"pkg/boot"), "%s links pkg/boot, which starts the Lambda runtime", cmd)
	}
	assert.Subset(t, slices.Collect(maps.Keys(servers)), []string{"cmd/a2a-local", "cmd/countdown-local"}, "the local server commands are found by what they link")
}

// sdkServices are the prefixes of the packages of the AWS SDK's service
// clients, and its loader of shared configuration (which brings the SSO,
// SSO-OIDC, STS and sign-in clients).
var sdkServices = []string{"github.com/aws/aws-sdk-go-v2/service/", "github.com/aws/aws-sdk-go-v2/feature/dynamodb/", "github.com/aws/aws-sdk-go-v2/config"}

// A local server command links no package of an AWS service client, nor
// the SDK's configuration loader: it calls DynamoDB, DynamoDB Streams (the
// follower of the table's stream, pkg/internal/streamscall), S3 and the
// others over pkg/internal/awscall, with the environment's credentials or
// the AWS CLI's (app.LocalAWS), and a client's packages are among the
// costliest to initialize (the Streams client's took ~0.18 ms of every
// start; the loader's, with its clients, 1-2 ms).
func TestLocalServerLinksNoServiceClient(t *testing.T) {
	servers := localServers(t)
	require.Contains(t, servers["cmd/a2a-local"], module+"pkg/internal/follow", "a2a-local follows the table's stream")
	for cmd, deps := range servers {
		for _, dep := range deps {
			for _, p := range sdkServices {
				if strings.HasPrefix(dep, p) {
					t.Errorf("%s links %s, a package of an AWS service client or of the SDK's configuration loader", cmd, dep)
				}
			}
		}
	}
}

// localServers returns what each local server command (each command that
// links localmain, by its path in the module) links.
func localServers(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"cmd/...").CombinedOutput()
	require.NoError(t, err, string(out))
	servers := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if cmd, deps := f[0], f[1:]; slices.Contains(deps, module+"pkg/app/localmain") {
			servers[strings.TrimPrefix(cmd, module)] = deps
		}
	}
	return servers
}
