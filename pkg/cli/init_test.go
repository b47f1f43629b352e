package cli_test

import (
	"bytes"
	"context"
	"debug/elf"
	"io/fs"
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
	"github.com/a2a-lambda/a2a-lambda/pkg/cli"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

// maxBootstrapBytes is the most a scaffolded function's bootstrap may
// weigh (10 MB), as `make build` builds it.
const maxBootstrapBytes = 10_000_000

// initProject runs `a2a init` with args and returns what it printed.
func initProject(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := cli.Run(ctx, append([]string{"init"}, args...), cli.Env{Stdout: &out, Stderr: &errb})
	return result{code, out.String(), errb.String()}
}

// projectEnv is this process's environment without what would leak into
// the project's commands: A2A_* settings, and the make that runs this test.
func projectEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "A2A_") || name == "MAKEFLAGS" || name == "MAKELEVEL" || name == "MFLAGS" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// inProject runs a command in dir and fails the test with its output when
// it fails; it returns the output and logs how long it took.
func inProject(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	t.Logf("%s %s: %s", name, strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond))
	return string(out)
}

// The "done when": `a2a init` into a new folder, with --replace
// pointing at this checkout, makes a project whose tests pass, whose
// `make build` leaves an arm64 bootstrap of at most 10 MB for every
// function, whose local server answers a message from the scaffolded
// agent, and whose template passes cfn-lint, the SAM transform and SAM
// CLI's route loader (`make validate`, when they are installed).
func TestInitScaffoldsAProjectThatBuildsAndServes(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go command, so the scaffolded project cannot be built")
	}
	checkout, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "myagent")
	start := time.Now()
	res := initProject(t, dir, "--module", "example.com/myagent", "--replace", checkout)
	require.Equal(t, cli.ExitOK, res.code, res.stderr)
	t.Logf("a2a init (go mod tidy included): %s", time.Since(start).Round(100*time.Millisecond))
	assert.Contains(t, res.stdout, `a2a init: example.com/myagent, agent "myagent", in `+dir)
	assert.Contains(t, res.stdout, "functions/ (7 files)")
	assert.Contains(t, res.stdout, "go.sum (go mod tidy)")

	var listing []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		rel, _ := filepath.Rel(dir, path)
		listing = append(listing, rel+" "+strconv.FormatInt(info.Size(), 10))
		return err
	}))
	t.Logf("the scaffold (file bytes):\n%s", strings.Join(listing, "\n"))
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "replace github.com/a2a-lambda/a2a-lambda => "+checkout+"\n")
	assert.FileExists(t, filepath.Join(dir, "go.sum"))

	env := projectEnv()
	out := inProject(t, dir, env, "go", "test", "./...")
	assert.Contains(t, out, "ok  \texample.com/myagent\t")

	// The three below run side by side: the template's checks are Python,
	// the builds Go.
	t.Run("make build", func(t *testing.T) {
		t.Parallel()
		inProject(t, dir, env, "make", "build")
		mains, err := filepath.Glob(filepath.Join(dir, "functions", "*", "main.go"))
		require.NoError(t, err)
		require.Len(t, mains, 7)
		for _, main := range mains {
			fn := filepath.Base(filepath.Dir(main))
			bin := filepath.Join(dir, "bin", fn, "bootstrap")
			f, err := elf.Open(bin)
			require.NoError(t, err, fn)
			assert.Equal(t, elf.EM_AARCH64, f.Machine, "%s is built for arm64", fn)
			require.NoError(t, f.Close())
			info, err := os.Stat(bin)
			require.NoError(t, err)
			t.Logf("bin/%s/bootstrap: %d bytes", fn, info.Size())
			assert.LessOrEqual(t, info.Size(), int64(maxBootstrapBytes), "bin/%s/bootstrap is %.2f MB", fn, float64(info.Size())/1e6)
		}
	})

	t.Run("local server", func(t *testing.T) {
		t.Parallel()
		bin := filepath.Join(t.TempDir(), "myagent-local")
		inProject(t, dir, env, "go", "build", "-o", bin, "./cmd/myagent-local")
		base := startLocal(t, bin, env)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := client.New(base, client.Options{})
		card, err := c.Card(ctx)
		require.NoError(t, err)
		assert.Equal(t, "myagent", card.Name, "A2A_AGENT defaults to the project's agent")
		blocking := true
		got, err := c.SendMessage(ctx, a2a.MessageSendParams{
			Message:       a2a.Message{Parts: []a2a.Part{a2a.TextPart("How many words is this?")}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
		})
		require.NoError(t, err)
		require.NotNil(t, got.Task)
		assert.Equal(t, a2a.TaskStateCompleted, got.Task.Status.State)
		assert.Equal(t, "Hello! Your message has 5 words.", got.Task.Status.Message.Text())
	})

	t.Run("validate", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("cfn-lint"); err != nil {
			t.Skip("SKIPPED: cfn-lint not found, so the scaffold's template was not validated (pip install cfn-lint aws-sam-translator)")
		}
		if err := exec.Command("python3", "-c", "import samtranslator, cfnlint").Run(); err != nil {
			t.Skip("SKIPPED: python3 cannot import samtranslator and cfnlint, so the scaffold's template was not transformed")
		}
		loader := samLocalDir(checkout)
		out := inProject(t, dir, env, "make", "validate", "SAM_LOCAL="+loader)
		assert.Contains(t, out, "cfn-lint template.yaml\n")
		assert.Contains(t, out, filepath.Join(checkout, "infra", "sam_transform.py")+" template.yaml -o .aws-sam/validate/template.json\n")
		if loader == "" {
			t.Log("SKIPPED: no SAM CLI route loader (shared/tools/sam-local/routes.py beside the checkout, or SAM_LOCAL), so sam local's route loading was not checked")
			assert.Contains(t, out, "validate: SKIPPED sam local's route loading")
			return
		}
		assert.Contains(t, out, "sam-local-routes: template.yaml: ")
		assert.NotContains(t, out, "SKIPPED")
	})
}

// samLocalDir returns the directory of SAM CLI's route loader (routes.py):
// SAM_LOCAL, or shared/tools/sam-local beside the checkout or one of its
// parents; "" when there is none.
func samLocalDir(checkout string) string {
	if dir := os.Getenv("SAM_LOCAL"); dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			return abs
		}
	}
	for d := checkout; filepath.Dir(d) != d; d = filepath.Dir(d) {
		dir := filepath.Join(filepath.Dir(d), "shared", "tools", "sam-local")
		if _, err := os.Stat(filepath.Join(dir, "routes.py")); err == nil {
			return dir
		}
	}
	return ""
}

// startLocal starts the local server bin on a free loopback port and
// returns its URL once it serves its card; it is stopped with the test.
func startLocal(t *testing.T, bin string, env []string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	require.NoError(t, ln.Close())
	var logs syncbuf.Buffer
	cmd := exec.Command(bin)
	cmd.Env = append(env, "A2A_HOST=127.0.0.1", "A2A_PORT="+port)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("the local server's output:\n%s", logs.String())
		}
	})
	base := "http://127.0.0.1:" + port
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/.well-known/agent-card.json")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 20*time.Millisecond, "the local server starts:\n%s", &logs)
	return base
}

// What a2a init cannot do is a usage error (exit 2) that says why, and
// writes nothing.
func TestInitUsageErrors(t *testing.T) {
	checkout, err := filepath.Abs("../..")
	require.NoError(t, err)
	full := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(full, "main.go"), []byte("package main\n"), 0o644))
	fresh := filepath.Join(t.TempDir(), "new")
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"no directory", []string{"--module", "example.com/x"}, "a2a init: expected DIR, got 0 argument(s)"},
		{"no module", []string{fresh, "--replace", checkout}, "a2a init: --module is required"},
		{"not a module path", []string{fresh, "--module", "example.com/my agent", "--replace", checkout}, `--module "example.com/my agent" is not a module path`},
		{"a directory that is not empty", []string{full, "--module", "example.com/x", "--replace", checkout}, full + " exists and is not empty"},
		{"not a checkout", []string{fresh, "--module", "example.com/x", "--replace", t.TempDir()}, "not a checkout of github.com/a2a-lambda/a2a-lambda"},
		{"a development build without --replace", []string{fresh, "--module", "example.com/x"}, "give --replace PATH"},
		{"an unknown flag", []string{fresh, "--module", "example.com/x", "--version", "v1"}, "flag provided but not defined: -version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := initProject(t, tc.args...)
			assert.Equal(t, cli.ExitUsage, res.code)
			assert.Contains(t, res.stderr, tc.err)
			assert.NoDirExists(t, fresh)
			entries, err := os.ReadDir(full)
			require.NoError(t, err)
			assert.Len(t, entries, 1)
		})
	}
}
