// Package awstest gives tests a local AWS stand-in: moto_server started
// through infra/localaws/moto_server_launcher.py (Step Functions parser mode
// and the moto 5.2.1 work-around included).
//
// `make test` starts one stand-in for every test binary and passes its URL in
// A2A_TEST_AWS_ENDPOINT. A test binary run on its own (go test ./pkg/...)
// starts its own stand-in when its TestMain calls Main, and stops it when the
// tests end. When moto is not installed, Main fails the binary under CI=true
// and otherwise lets the AWS-backed tests skip, saying so loudly.
package awstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// Environment variables.
const (
	// EnvEndpoint is the URL of the local AWS stand-in that AWS-backed tests
	// use. `make test` sets it (infra/localaws/with-local-aws).
	EnvEndpoint = "A2A_TEST_AWS_ENDPOINT"
	// envUnavailable says why there is no stand-in (moto missing outside CI).
	envUnavailable = "A2A_TEST_AWS_UNAVAILABLE"
	// Region is the region tests use.
	Region = "us-east-1"
	// InstallHint tells how to get moto.
	InstallHint  = `pip install "moto[server]==5.2.1"`
	launcherPath = "infra/localaws/moto_server_launcher.py"
	startTimeout = 30 * time.Second
)

// Main runs m with a local AWS stand-in and returns the exit code. Use it in
// the TestMain of every package whose tests need AWS:
//
//	func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }
func Main(m *testing.M) int {
	if os.Getenv(EnvEndpoint) != "" {
		return m.Run()
	}
	if err := MotoAvailable(); err != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "awstest: %v; CI=true requires the AWS-backed tests: %s\n", err, InstallHint)
			return 1
		}
		reason := fmt.Sprintf("no local AWS stand-in (%v); install moto to run this test: %s", err, InstallHint)
		fmt.Fprintf(os.Stderr, "\n%s\n# awstest: %s\n# every AWS-backed test of this package SKIPS\n%s\n\n", banner, reason, banner)
		os.Setenv(envUnavailable, reason)
		return m.Run()
	}
	srv, err := Start(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "awstest: %v\n", err)
		return 1
	}
	defer srv.Stop()
	os.Setenv(EnvEndpoint, srv.Endpoint())
	return m.Run()
}

var banner = strings.Repeat("#", 80)

// MotoAvailable reports why moto's server cannot run here, or nil.
func MotoAvailable() error {
	python := pythonPath()
	if out, err := exec.Command(python, "-c", "import moto.server").CombinedOutput(); err != nil {
		return fmt.Errorf("%s cannot import moto.server: %v: %s", python, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func pythonPath() string {
	if p := os.Getenv("PYTHON"); p != "" {
		return p
	}
	return "python3"
}

// Server is a running local AWS stand-in.
type Server struct {
	cmd      *exec.Cmd
	endpoint string
	done     chan struct{}
}

// Start launches the stand-in on a free loopback port and waits until it
// answers.
func Start(ctx context.Context) (*Server, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	var errs []error
	for attempt := 0; attempt < 3; attempt++ {
		srv, err := start(ctx, filepath.Join(root, launcherPath))
		if err == nil {
			return srv, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("start the local AWS stand-in: %w", errors.Join(errs...))
}

func start(ctx context.Context, launcher string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var log strings.Builder
	cmd := exec.Command(pythonPath(), launcher, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", launcher, err)
	}
	s := &Server{cmd: cmd, endpoint: "http://127.0.0.1:" + strconv.Itoa(port), done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()

	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(s.endpoint + "/moto-api/config")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("moto exited on port %d: %s", port, lastLines(log.String(), 5))
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("moto did not answer on port %d within %s", port, startTimeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Endpoint is the stand-in's URL.
func (s *Server) Endpoint() string { return s.endpoint }

// Stop ends the stand-in and waits for it to exit.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// Running reports whether the stand-in's process is still alive.
func (s *Server) Running() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, launcherPath)); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s above the working directory", launcherPath)
		}
		dir = parent
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Endpoint returns the stand-in's URL. It skips the test when moto is not
// installed outside CI (Main said so loudly), and fails it when the test
// binary has no stand-in at all.
func Endpoint(t testing.TB) string {
	t.Helper()
	if e := os.Getenv(EnvEndpoint); e != "" {
		return e
	}
	if reason := os.Getenv(envUnavailable); reason != "" {
		t.Skipf("SKIPPED, needs AWS: %s", reason)
	}
	t.Fatalf("no local AWS stand-in: call awstest.Main from TestMain, or set %s", EnvEndpoint)
	return ""
}

// Config returns an AWS configuration for the stand-in, with dummy
// credentials.
func Config(t testing.TB) aws.Config {
	return aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(Endpoint(t)),
	}
}

// DynamoDB returns a DynamoDB client of the stand-in: the store's own
// (pkg/dynamodb), which the Lambda functions use.
func DynamoDB(t testing.TB) *dynamodb.Client {
	c, err := dynamodb.New(Config(t), dynamodb.Options{})
	if err != nil {
		t.Fatalf("awstest: %v", err)
	}
	return c
}

// SDKEnv returns the environment that points the AWS SDK's default
// configuration at the stand-in, and sets it in the process for the test
// (the SDK reads credentials from the process environment).
func SDKEnv(t *testing.T) map[string]string {
	env := map[string]string{
		"AWS_ENDPOINT_URL":      Endpoint(t),
		"AWS_REGION":            Region,
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	return env
}

// UniqueName returns a DynamoDB table name unique to this test run:
// prefix, the test's name and a random suffix.
func UniqueName(t testing.TB, prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, t.Name())
	if len(name) > 180 {
		name = name[len(name)-180:]
	}
	return prefix + "-" + name + "-" + hex.EncodeToString(b[:])
}
