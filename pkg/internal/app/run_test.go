package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/emftest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestRunLocalServesTheBannerExample starts the local server as `make run`
// does and runs the curl command its banner prints.
func TestRunLocalServesTheBannerExample(t *testing.T) {
	srv := runLocal(t, map[string]string{"A2A_DEMO_WORK_MS": "0"})

	// The banner is printed once the server serves, a moment after the
	// card it already served.
	require.Eventually(t, func() bool { return strings.Contains(srv.out.String(), "Send a first message") }, 5*time.Second, time.Millisecond)
	banner := srv.out.String()
	assert.Contains(t, banner, srv.base+".well-known/agent-card.json")
	m := regexp.MustCompile(`curl -s (\S+) -H 'Content-Type: application/json' -d '([^']+)'`).FindStringSubmatch(banner)
	require.Len(t, m, 3, "the banner shows a curl command:\n%s", banner)
	assert.Equal(t, srv.base, m[1])
	resp, err := srv.client.Post(m[1], "application/json", strings.NewReader(m[2]))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var rpc struct {
		Result struct {
			Status struct{ State string }
		}
	}
	require.NoError(t, json.Unmarshal(body, &rpc), string(body))
	assert.Equal(t, "completed", rpc.Result.Status.State, string(body))
	assert.Eventually(t, func() bool { return strings.Contains(srv.logs.String(), "authentication is off") }, 5*time.Second, time.Millisecond,
		"running without a token is logged")
	// runLocal's cleanup shuts the server down and checks that it ends cleanly.
}

func TestRunLocalRefusesUnsafeOrBadSettings(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"A2A_HOST": "0.0.0.0"}, "A2A_HOST=0.0.0.0 is not a loopback address: set A2A_BEARER_TOKEN"},
		{map[string]string{"A2A_AGENT": "nope"}, `A2A_AGENT="nope" is not a registered agent`},
		{map[string]string{"A2A_PORT": "x"}, "A2A_PORT"},
		{map[string]string{"A2A_AUTH": "jwt"}, "A2A_AUTH=jwt needs API Gateway's JWT authorizer"},
		{map[string]string{"A2A_HTTP_MAX_CONNECTIONS": "0", "A2A_PORT": "x"}, `A2A_HTTP_MAX_CONNECTIONS="0"`},
		{map[string]string{"A2A_BEARER_TOKEN": "x"}, `A2A_BEARER_TOKEN: the token of caller "default" is too short (1 characters, at least 16)`},
		{map[string]string{"A2A_BEARER_TOKENS": "anonymous:0123456789abcdef"}, `the caller name "anonymous" is reserved`},
	}
	for _, tt := range tests {
		err := app.RunLocal(context.Background(), func(k string) string { return tt.env[k] }, builtin.Registry(), io.Discard, io.Discard, nil)
		assert.ErrorContains(t, err, tt.want)
	}
}

// The card is served while the rest of the server is built; a server that
// cannot be built (here, its files folder) stops serving, prints no
// banner and returns why.
func TestRunLocalStopsWhenTheServerCannotBeBuilt(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, nil, 0o600))
	env := map[string]string{"A2A_PORT": strconv.Itoa(freePort(t)), "A2A_FILES_DIR": filepath.Join(notADir, "files")}
	out := &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- app.RunLocal(context.Background(), func(k string) string { return env[k] }, builtin.Registry(), out, io.Discard, nil)
	}()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "A2A_FILES_DIR="+filepath.Join(notADir, "files"))
	case <-time.After(10 * time.Second):
		t.Fatal("RunLocal did not return")
	}
	assert.NotContains(t, out.String(), "serving", "no banner for a server that did not start")
}

// localServer is the local server as `make run` starts it, with env.
type localServer struct {
	addr   string // 127.0.0.1:<port>
	base   string // http://127.0.0.1:<port>/
	out    *syncbuf.Buffer
	logs   *syncbuf.Buffer
	client *http.Client
}

// runLocal starts the local server on a free port with env and waits until
// it serves (its standard output kept in out, its logs in logs); the server is shut down (and must end cleanly) when the test
// ends.
func runLocal(t *testing.T, env map[string]string) *localServer {
	t.Helper()
	port := freePort(t)
	env["A2A_PORT"] = strconv.Itoa(port)
	ctx, cancel := context.WithCancel(context.Background())
	addr := "127.0.0.1:" + strconv.Itoa(port)
	s := &localServer{addr: addr, base: "http://" + addr + "/", out: &syncbuf.Buffer{}, logs: &syncbuf.Buffer{},
		// Its own connections, all closed before the server shuts down
		// (a connection the transport dialed and never used would hold
		// the shutdown for 5 s).
		client: &http.Client{Transport: &http.Transport{}}}
	done := make(chan error, 1)
	go func() {
		done <- app.RunLocal(ctx, func(k string) string { return env[k] }, builtin.Registry(), s.out, s.logs, nil)
	}()
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("the server did not shut down")
		}
	})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Fatalf("the server stopped: %v; logs: %s", err, s.logs.String())
		default:
		}
		resp, err := s.client.Get(s.base + ".well-known/agent-card.json")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server does not serve; logs: %s", s.logs.String())
		}
	}
	return s
}

// slowBody opens a connection that promises a 1 MiB body and sends 10
// bytes of it.
func slowBody(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{\"jsonrpc\"")
	require.NoError(t, err)
	return conn
}

// A client that promises a body and never sends it is cut once
// A2A_HTTP_READ_TIMEOUT_SECONDS has passed: the server answers 400 and
// closes the connection.
func TestLocalServerCutsSlowBodies(t *testing.T) {
	srv := runLocal(t, map[string]string{"A2A_HTTP_READ_TIMEOUT_SECONDS": "1"})
	conn := slowBody(t, srv.addr)
	// Generous: the server's own timeout is 1 s.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(15*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the server answers within its read timeout")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", body)
	assert.Contains(t, string(body), "could not read the request body")
	_, err = conn.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "and closes the connection")
}

// At A2A_HTTP_MAX_CONNECTIONS, a new connection waits until one served
// closes: held connections cannot take more than their share.
func TestLocalServerCapsConnections(t *testing.T) {
	srv := runLocal(t, map[string]string{"A2A_HTTP_MAX_CONNECTIONS": "2", "A2A_HTTP_READ_TIMEOUT_SECONDS": "3600"})
	addr := srv.addr
	// runLocal's own client may keep its connection alive: let it go.
	srv.client.CloseIdleConnections()
	held := []net.Conn{slowBody(t, addr), slowBody(t, addr)}

	answered := make(chan int, 1)
	go func() {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			answered <- 0
			return
		}
		defer conn.Close()
		_, _ = io.WriteString(conn, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		t.Fatalf("a third connection was served (%d) while two were held", code)
	case <-time.After(300 * time.Millisecond):
	}
	held[0].Close()
	select {
	case code := <-answered:
		assert.Equal(t, http.StatusOK, code)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting connection was not served once a slot was free")
	}
}

// With A2A_METRICS=emf the local server writes a task step's metrics when
// the step ends, as the worker function would: a blocking send that
// completes and one that fails show TasksCompleted, TasksFailed and
// StepDuration with no request after them.
func TestLocalServerWritesStepMetricsWhenTheStepEnds(t *testing.T) {
	srv := runLocal(t, map[string]string{"A2A_DEMO_WORK_MS": "0", "A2A_METRICS": "emf", "A2A_METRICS_NAMESPACE": "A2ALocal"})
	out, base := srv.out, srv.base

	for text, state := range map[string]string{"hello": "completed", "fail": "failed"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m-` + text + `","parts":[{"kind":"text","text":"` + text + `"}]},"configuration":{"blocking":true}}}`
		resp, err := srv.client.Post(base, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Contains(t, string(b), `"state":"`+state+`"`)
	}
	// No request follows: the steps' own lines carry their metrics.
	var totals map[string]float64
	require.Eventually(t, func() bool {
		start := strings.Index(out.String(), `{"_aws"`)
		if start < 0 {
			return false
		}
		totals = emftest.Totals(emftest.Documents(t, []byte(out.String()[start:])))
		return totals[metrics.TasksCompleted] == 1 && totals[metrics.TasksFailed] == 1 && hasMetric(out.String(), metrics.StepDuration)
	}, 10*time.Second, 10*time.Millisecond, "the EMF lines: %s", out.String())
	assert.Equal(t, float64(2), totals[metrics.TasksCreated])
}

// hasMetric reports whether an EMF line declares metric name.
func hasMetric(emf, name string) bool { return strings.Contains(emf, `{"Name":"`+name+`"`) }

// The local server with its tasks in DynamoDB and its files in S3 loads
// the AWS configuration once for both: the SDK's default chain reads the
// shared files and may sign in (SSO, a role) each time.
func TestRunLocalLoadsTheAWSConfigurationOnce(t *testing.T) {
	env := map[string]string{
		"A2A_PORT": strconv.Itoa(freePort(t)), "A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "tasks",
		"AWS_REGION": "us-east-1", "A2A_FILES_BUCKET": "files", "A2A_PUSH_NOTIFICATIONS": "false",
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	loads := 0
	load := func(context.Context, config.Config) (aws.Config, error) {
		loads++
		cancel() // the server stops as soon as it serves
		// Nothing listens there: the sweep's first query fails at once.
		return aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), BaseEndpoint: aws.String("http://127.0.0.1:1")}, nil
	}
	err := app.RunLocal(ctx, func(k string) string { return env[k] }, builtin.Registry(), io.Discard, io.Discard, load)
	require.NoError(t, err)
	assert.Equal(t, 1, loads)
}
