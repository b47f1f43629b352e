package main_test

import (
	"context"
	"encoding/json"
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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// server is a real a2a-local process.
type server struct {
	cmd  *exec.Cmd
	base string
	logs syncbuf.Buffer
}

// takenOver returns when the server's sweeps took each task over, from
// the time of their log lines: the server's own time, which a test that
// polls the store under load would only see later.
func (s *server) takenOver(t *testing.T) map[string]time.Time {
	t.Helper()
	at := map[string]time.Time{}
	for line := range strings.SplitSeq(s.logs.String(), "\n") {
		var l struct {
			Time   time.Time `json:"time"`
			Msg    string    `json:"msg"`
			TaskID string    `json:"taskId"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || !strings.HasPrefix(l.Msg, "task taken over") {
			continue
		}
		if _, seen := at[l.TaskID]; !seen {
			at[l.TaskID] = l.Time
		}
	}
	return at
}

func startServer(t *testing.T, bin string, env map[string]string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(bin), base: "http://127.0.0.1:" + env["A2A_PORT"]}
	for k, v := range env {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	require.Eventually(t, func() bool {
		resp, err := http.Get(s.base + "/.well-known/agent-card.json")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 20*time.Millisecond, "the server starts")
	return s
}

func (s *server) send(t *testing.T, messageID, text string) a2a.Task {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":%q,"parts":[{"kind":"text","text":%q}]},"configuration":{"blocking":false}}}`, messageID, text)
	resp, err := http.Post(s.base+"/", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var rpc struct {
		Result a2a.Task
		Error  *a2a.Error
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&rpc))
	require.Nil(t, rpc.Error)
	return rpc.Result
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// The local server on DynamoDB is killed (SIGKILL) while long tasks and
// plain sends run, and restarted on the same table: it takes every task
// over once its lease lapses, and each completes; a retried send of one of
// them returns it and starts nothing.
func TestLocalServerKilledMidTask(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "a2a-local")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	const lease = 2 * time.Second
	env := awstest.SDKEnv(t)
	for k, v := range map[string]string{
		"A2A_PORT": freePort(t), "A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": awstest.UniqueName(t, "crash"),
		"A2A_TASK_STORE_CREATE_TABLE": "true", "A2A_PUSH_NOTIFICATIONS": "false", "A2A_TASK_LEASE_SECONDS": "2",
		"A2A_DEMO_WORK_MS": "20000", "A2A_DEMO_STEP_MS": "300", "PATH": os.Getenv("PATH"),
	} {
		env[k] = v
	}
	first := startServer(t, bin, env)
	var tasks []a2a.Task
	for i := range 4 {
		tasks = append(tasks, first.send(t, fmt.Sprintf("long-%d", i), "long 10"))
	}
	for i := range 2 {
		tasks = append(tasks, first.send(t, fmt.Sprintf("plain-%d", i), "hello "+strconv.Itoa(i)))
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	ts, err := dynamo.New(awstest.DynamoDB(t), dynamo.Options{Table: cfg.TaskStore.Table, TaskTTL: cfg.TaskStore.TTL})
	require.NoError(t, err)
	read := func(id string) *store.TaskRecord {
		rec, err := ts.GetTask(context.Background(), id, store.AllHistory)
		require.NoError(t, err)
		return rec
	}
	// Every task is running (the long ones a few steps in) when the
	// server dies.
	require.Eventually(t, func() bool {
		for _, task := range tasks {
			if read(task.ID).Task.Status.State != a2a.TaskStateWorking {
				return false
			}
		}
		return len(read(tasks[0].ID).Task.Artifacts) > 0
	}, 20*time.Second, 50*time.Millisecond)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_ = first.cmd.Wait()
	killed := time.Now()
	before := map[string]int{}
	for _, task := range tasks {
		before[task.ID] = len(read(task.ID).Task.History)
	}

	env["A2A_DEMO_WORK_MS"] = "100"
	second := startServer(t, bin, env)
	resumed := map[string]time.Duration{}
	require.Eventually(t, func() bool {
		done := true
		for _, task := range tasks {
			rec := read(task.ID)
			if _, seen := resumed[task.ID]; !seen && rec.Takeovers > 0 {
				resumed[task.ID] = time.Since(killed)
			}
			done = done && rec.Task.Status.State.Terminal()
		}
		return done
	}, 60*time.Second, 50*time.Millisecond, "every task finishes: %s", second.logs.String())

	takenOver := second.takenOver(t)
	for _, task := range tasks {
		rec := read(task.ID)
		assert.Equal(t, a2a.TaskStateCompleted, rec.Task.Status.State, "task %s: %v", task.ID, rec.Task.Status.Message)
		// Taken over once after the crash; a second time only when the
		// loaded test machine delayed a renewal past the short lease.
		assert.GreaterOrEqual(t, rec.Takeovers, 1, "task %s was taken over", task.ID)
		assert.LessOrEqual(t, rec.Takeovers, config.DefaultMaxTakeovers, "task %s was not given up", task.ID)
		// The promised 1.5 leases (a lease and a sweep interval, a quarter
		// lease, plus a quarter for the restart), with slack for a loaded
		// machine's process start; by the server's clock (its log), as
		// polling a loaded moto sees a takeover late.
		require.Contains(t, takenOver, task.ID, "task %s: the takeover is logged", task.ID)
		assert.Less(t, takenOver[task.ID].Sub(killed), lease+lease/2+3*time.Second, "task %s resumed within 1.5 leases of the crash", task.ID)
		assert.Greater(t, len(rec.Task.History), before[task.ID], "task %s went on", task.ID)
	}
	long := read(tasks[0].ID)
	require.NotEmpty(t, long.Task.Artifacts)
	assert.Contains(t, a2a.PartsText(long.Task.Artifacts[0].Parts), "step 10 of 10", "the long task resumed from its checkpoint and finished")
	after := map[string]time.Duration{}
	for id, at := range takenOver {
		after[id] = at.Sub(killed)
	}
	t.Logf("taken over after the crash: %v (seen by polling after %v)", after, resumed)

	// A retried send of a task returns it; nothing new starts.
	again := second.send(t, "long-0", "long 10")
	assert.Equal(t, tasks[0].ID, again.ID)
	page, err := ts.ListTasks(context.Background(), store.ListQuery{Owner: auth.AnonymousOwner, PageSize: 50})
	require.NoError(t, err)
	assert.Len(t, page.Tasks, len(tasks), "a retried send starts no second task")
}
