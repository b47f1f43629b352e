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

// serviceClients are the AWS SDK service clients each function may link:
// Go initializes every linked package at every cold start, and a service
// client's packages are among the costliest (GODEBUG=inittrace=1). The
// DynamoDB store (pkg/store/dynamo) brings the stream client along. Step
// Functions, SQS, Lambda and S3 are called without their clients, nor any
// package of theirs (pkg/internal/sfncall, sqscall, lambdainvoke,
// objectstore over pkg/internal/awscall): see neverLinked.
var serviceClients = map[string][]string{
	"card":    nil,
	"send":    {"dynamodb"},
	"tasks":   {"dynamodb"},
	"worker":  {"dynamodb"},
	"sweep":   {"dynamodb"},
	"push":    {"dynamodb"},
	"deliver": {"dynamodb"},
}

// neverLinked are the SDK's packages of the services the functions call
// over pkg/internal/awscall: no function links any package under them (a
// client's types alone cost their endpoints' and schemas' initialization).
var neverLinked = []string{"sfn", "sqs", "lambda", "s3"}

// Nothing a function never calls: the composition root of the local
// server (which links every client), the memory store, the local runner
// and push queue, and the console.
var localOnly = []string{"pkg/internal/app", "pkg/store/memory", "pkg/internal/runner/local", "pkg/internal/push/memqueue", "pkg/internal/console"}

// Each function links only the AWS service clients it calls, no SDK
// configuration loader (github.com/aws/aws-sdk-go-v2/config, with its SSO,
// STS and IMDS clients: pkg/boot builds the configuration from Lambda's
// environment) and none of the local server's packages.
func TestFunctionsLinkOnlyTheirClients(t *testing.T) {
	for _, name := range functions(t) {
		want, ok := serviceClients[name]
		require.True(t, ok, "functions/%s: say which AWS service clients it may link in serviceClients", name)
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "./"+name)
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			var got []string
			for _, dep := range strings.Fields(string(out)) {
				if svc, ok := strings.CutPrefix(dep, "github.com/aws/aws-sdk-go-v2/service/"); ok {
					if !strings.Contains(svc, "/") && svc != "internal" {
						got = append(got, svc)
					}
					root, _, _ := strings.Cut(svc, "/")
					assert.NotContains(t, neverLinked, root, "functions/%s links %s", name, dep)
				}
				assert.NotEqual(t, "github.com/aws/aws-sdk-go-v2/config", dep, "functions/%s links the SDK's configuration loader", name)
				assert.False(t, strings.HasPrefix(dep, "github.com/chromedp/"), "functions/%s links %s, the console test's browser driver", name, dep)
				for _, p := range localOnly {
					assert.NotEqual(t, "github.com/a2a-lambda/a2a-lambda/"+p, dep, "functions/%s links %s", name, p)
				}
			}
			assert.ElementsMatch(t, want, got, "the AWS service clients functions/%s links", name)
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
