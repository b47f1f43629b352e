package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
)

// chromium is Debian's headless browser (apt-get install chromium; .ci/run
// installs it): the console's test skips loudly without it, and fails
// under CI=true.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	msg := "no chromium: the console's browser test needs Debian's chromium (apt-get install -y chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires it (.ci/run installs it)")
	}
	fmt.Fprintf(os.Stderr, "\n########\n# %s\n# TestConsoleInBrowser SKIPS\n########\n\n", msg)
	t.Skip(msg)
	return ""
}

// firstRefused answers the first notification 400 (a permanent failure:
// dead-lettered at once), then 204, or 400 while broken.
type firstRefused struct {
	mu     sync.Mutex
	seen   int
	broken bool
}

func (h *firstRefused) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen++
	if h.seen == 1 || h.broken {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// TestConsoleInBrowser drives the console in headless Chromium, as a
// person would: signs in with the server's token, sends a long task and
// sees it running in the list, sends "permission deploy" with a webhook,
// sees the task wait for permission (a screenshot is saved in the test's
// temporary directory), allows it with a click and sees it complete, then
// sees the webhook's deliveries, one dead-lettered, and redrives it.
func TestConsoleInBrowser(t *testing.T) {
	exe := chromium(t)
	const token = "console-s3cret-16ch"
	env := map[string]string{"A2A_DEMO_WORK_MS": "0", "A2A_DEMO_STEP_MS": "300", "A2A_PUSH_ALLOW_INSECURE": "true", "A2A_BEARER_TOKEN": token}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	ag, err := builtin.Registry().New("demo", func(k string) string { return env[k] })
	require.NoError(t, err)
	srv, err := app.NewLocal(cfg, ag, app.LocalOptions{Auth: auth.NewBearer(cfg.Tokens),
		Push: app.PushOptions{Retry: push.RetryPolicy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond}}})
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(srv.Close)
	t.Cleanup(hs.Close)
	hook := &firstRefused{}
	hooks := httptest.NewServer(hook)
	t.Cleanup(hooks.Close)

	dir := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1280, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, steps...), what)
	}
	value := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		require.NoError(t, err, what)
		return v
	}

	// The console asks for the token, then lists the caller's tasks.
	run("sign in",
		chromedp.Navigate(hs.URL+"/console/"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="token"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), token),
		chromedp.Submit(chromedp.CSS(`input[name="token"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form.send textarea[name="text"]`)))

	// A long task runs; the list shows it working.
	run("send a long task",
		chromedp.SendKeys(chromedp.CSS(`form.send textarea[name="text"]`), "long 60"),
		chromedp.Submit(chromedp.CSS(`form.send textarea[name="text"]`)),
		chromedp.WaitVisible(chromedp.CSS(`h2 .state-working`)))
	longTask := value("the task's id", chromedp.Text(chromedp.CSS(`h2 code`)))
	run("back to the list",
		chromedp.Navigate(hs.URL+"/console/"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-state="working"] a`)))
	require.NotEmpty(t, longTask)
	run("the running task is listed", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`tr[data-task=%q][data-state="working"]`, longTask))))

	// A task that asks permission, with a webhook.
	run("send a task that asks permission",
		chromedp.SendKeys(chromedp.CSS(`form.send textarea[name="text"]`), "permission deploy"),
		chromedp.SendKeys(chromedp.CSS(`form.send input[name="webhook"]`), hooks.URL+"/hook"),
		chromedp.Submit(chromedp.CSS(`form.send textarea[name="text"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-interrupt="permission"] button[value="once"]`)))
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	screenshot := filepath.Join(dir, "console-permission.png")
	require.NoError(t, os.WriteFile(screenshot, shot, 0o644))
	t.Logf("screenshot of a task waiting for permission: %s (%d bytes)", screenshot, len(shot))
	if out := os.Getenv("A2A_CONSOLE_SCREENSHOT"); out != "" {
		require.NoError(t, os.WriteFile(out, shot, 0o644))
	}

	run("allow it once, and see the task complete",
		chromedp.Click(chromedp.CSS(`[data-interrupt="permission"] button[value="once"]`)),
		chromedp.WaitVisible(chromedp.CSS(`h2 .state-completed`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-interrupt]`)))

	// The webhook refused the first notification: that delivery failed
	// for good; the others were delivered. The page shows both (it
	// refreshes itself), and the failed one is redriven with a click.
	run("see the deliveries",
		chromedp.WaitVisible(chromedp.CSS(`tr[data-state="delivered"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-state="failed"] button`)))
	attr, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`tr[data-state="failed"]`), "data-delivery"))
	require.NoError(t, err)
	require.True(t, attr.Exists)
	failedEvent := attr.Value
	run("redrive the failed delivery",
		chromedp.Click(chromedp.CSS(`tr[data-state="failed"] button`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`tr[data-delivery=%q][data-state="delivered"]`, failedEvent))))

	attempts := value("the redriven delivery shows both attempts", chromedp.Text(chromedp.CSS(fmt.Sprintf(`tr[data-delivery=%q] ol.attempts`, failedEvent))))
	require.Contains(t, attempts, "400 failed")
	require.Contains(t, attempts, "204 delivered")
}
