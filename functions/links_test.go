package functions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// No function links a package of an AWS SDK service client: Go
// initializes every linked package at every cold start, and a client's
// packages are among the costliest (their service model tables and
// endpoints: the SDK's DynamoDB packages took ~0.8 ms of every cold start
// and ~2 MB of every binary, SQS's ~0.35 ms). The functions call DynamoDB
// (pkg/dynamodb), Step Functions, SQS, Lambda and S3 (pkg/internal/sfncall,
// sqscall, lambdainvoke, objectstore) over pkg/internal/awscall. sdkServices
// are the prefixes of those packages.
var sdkServices = []string{
	"github.com/aws/aws-sdk-go-v2/service/",
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/",
}

// Nothing a function never calls: the composition root of the local
// server (which links every client), the memory store, the local runner
// and push queue, and the console.
var localOnly = []string{"pkg/internal/app", "pkg/store/memory", "pkg/internal/runner/local", "pkg/internal/push/memqueue", "pkg/internal/console"}

// Each function links no package of an AWS service client, no SDK
// configuration loader (github.com/aws/aws-sdk-go-v2/config, with its SSO,
// STS and IMDS clients: pkg/boot builds the configuration from Lambda's
// environment) and none of the local server's packages.
func TestFunctionsLinkOnlyTheirClients(t *testing.T) {
	for _, name := range functions(t) {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "./"+name)
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			deps := strings.Fields(string(out))
			require.Contains(t, deps, "github.com/aws/aws-lambda-go/lambda", "the list is functions/%s's dependencies", name)
			for _, dep := range deps {
				for _, p := range sdkServices {
					assert.False(t, strings.HasPrefix(dep, p), "functions/%s links %s, a package of an AWS service client", name, dep)
				}
				assert.NotEqual(t, "github.com/aws/aws-sdk-go-v2/config", dep, "functions/%s links the SDK's configuration loader", name)
				assert.False(t, strings.HasPrefix(dep, "github.com/chromedp/"), "functions/%s links %s, the console test's browser driver", name, dep)
				for _, p := range localOnly {
					assert.NotEqual(t, "github.com/a2a-lambda/a2a-lambda/"+p, dep, "functions/%s links %s", name, p)
				}
			}
		})
	}
}

// maxBinaryBytes is the most a function's deployed binary may weigh: a
// guard on what each function links (what Go initializes at every cold
// start, with what the cold start benchmark measures). It was 10 MB until
// the asynchronous path and the idempotency rule took send and tasks over
// it by the two 64 KB pages of code they added (10.03 MB).
const maxBinaryBytes = 10_500_000

// Every function's binary as `make build` makes it (linux/arm64,
// CGO_ENABLED=0, -tags lambda.norpc, -trimpath, -ldflags='-s -w') weighs
// at most 10.5 MB.
func TestDeployedBinarySize(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds every function")
	}
	names := functions(t)
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "lambda.norpc", "-ldflags=-s -w", "-o", dir+string(filepath.Separator), "./...")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, name := range names {
		info, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		t.Logf("%s: %d bytes (linux/arm64)", name, info.Size())
		assert.LessOrEqual(t, info.Size(), int64(maxBinaryBytes), "functions/%s is %.2f MB for linux/arm64", name, float64(info.Size())/1e6)
	}
}
