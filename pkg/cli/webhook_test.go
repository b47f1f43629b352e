package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/cli"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

// listener is a running "a2a webhook listen".
type listener struct {
	url            string // the URL it says to register
	stdout, stderr *syncbuf.Buffer
	stop           func() int // interrupts it and returns its exit code
}

var listeningRE = regexp.MustCompile(`listening on (\S+)`)

// listen starts "a2a webhook listen args..." and waits until it listens.
func listen(t *testing.T, args ...string) *listener {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, append([]string{"webhook", "listen"}, args...), cli.Env{Stdout: l.stdout, Stderr: l.stderr})
	}()
	var once sync.Once
	code := -1
	l.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Error("the listener did not stop")
			}
		})
		return code
	}
	t.Cleanup(func() { l.stop() })
	require.Eventually(t, func() bool {
		m := listeningRE.FindStringSubmatch(l.stderr.String())
		if m != nil {
			l.url = m[1]
		}
		return m != nil
	}, 5*time.Second, 5*time.Millisecond, "the listener never said where it listens: %s", l.stderr)
	return l
}

// agentKeys is the agent side: a signing key set whose JWKS is served.
type agentKeys struct {
	set     *keys.Set
	jwksURL string
	base    string
}

func newAgentKeys(t *testing.T) agentKeys {
	t.Helper()
	set, err := keys.Generate(keys.AlgES256)
	require.NoError(t, err)
	hs := httptest.NewServer(set) // serves the JWKS on every path
	t.Cleanup(hs.Close)
	return agentKeys{set: set, jwksURL: hs.URL + "/.well-known/jwks.json", base: hs.URL}
}

// deliverer signs with signer, the way the agent's push pipeline does.
func deliverer(t *testing.T, signer push.Signer, issuer string, hc *http.Client) *push.Deliverer {
	t.Helper()
	d, err := push.NewDeliverer(push.DelivererOptions{
		Signer: signer, Issuer: issuer,
		Policy: egress.Policy{AllowInsecure: true}, // the listener is on 127.0.0.1
		Client: hc,
	})
	require.NoError(t, err)
	return d
}

func task03(id, state, text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"kind": "task", "id": id, "contextId": "ctx-1",
		"status": map[string]any{"state": state, "message": map[string]any{
			"kind": "message", "role": "agent", "messageId": "m-" + state, "parts": []any{map[string]any{"kind": "text", "text": text}},
		}},
	})
	return b
}

// tamper is a transport that changes the body after it was signed.
type tamper struct{}

func (tamper) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	body = bytes.Replace(body, []byte("working"), []byte("completed"), 1)
	r = r.Clone(r.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return http.DefaultTransport.RoundTrip(r)
}

var timeRE = `\d\d:\d\d:\d\d`

func TestWebhookListenVerifiesAndPrints(t *testing.T) {
	ag := newAgentKeys(t)
	l := listen(t, "127.0.0.1:0", "--agent", ag.base, "--token", "hook-tok")
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/$`, l.url, "the default audience is http://ADDR/ with the bound port")
	assert.Contains(t, l.stderr.String(), "register it: a2a send AGENT TEXT --push-url "+l.url+" --push-token TOKEN")
	assert.Contains(t, l.stderr.String(), "keys:        "+ag.jwksURL)
	assert.NotContains(t, l.stderr.String(), "warning")
	d := deliverer(t, ag.set, ag.base, nil)
	ctx := context.Background()
	cfg := a2a.PushNotificationConfig{URL: l.url, Token: "hook-tok"}

	working := push.Notification{Config: cfg, TaskID: "task-1", TaskVersion: 2, Body: task03("task-1", "working", "Working on it...")}
	res := d.Deliver(ctx, working)
	require.Equal(t, push.Delivered, res.Outcome, res.Err)
	assert.Equal(t, http.StatusNoContent, res.StatusCode)

	// An A2A 1.0 body: a StreamResponse with the task, enums in 1.0 form.
	v1 := push.Notification{Config: cfg, TaskID: "task-1", TaskVersion: 3, ContentType: push.ContentTypeA2AJSON,
		Body: []byte(`{"task":{"id":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","messageId":"m","parts":[{"text":"Done."}]}}}}`)}
	res = d.Deliver(ctx, v1)
	require.Equal(t, push.Delivered, res.Outcome, res.Err)

	lines := strings.Split(strings.TrimSpace(l.stdout.String()), "\n")
	require.Len(t, lines, 2, l.stdout)
	assert.Regexp(t, `^`+timeRE+` task task-1 v2 working: Working on it\.\.\.$`, lines[0])
	assert.Regexp(t, `^`+timeRE+` task task-1 v3 completed: Done\.$`, lines[1])

	// The agent retries an event it already delivered: acknowledged, not printed again.
	res = d.Deliver(ctx, working)
	assert.Equal(t, push.Delivered, res.Outcome, res.Err)
	assert.Equal(t, http.StatusOK, res.StatusCode, "the verifier answers 200 to a duplicate, so the agent stops retrying")
	assert.Len(t, strings.Split(strings.TrimSpace(l.stdout.String()), "\n"), 2, "a duplicate is not printed")
	assert.Contains(t, l.stderr.String(), "duplicate task-1:2 ignored")

	other, err := keys.Generate(keys.AlgEdDSA)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		send   func() int
		status int
		says   string
	}{
		{"unsigned", func() int {
			resp, err := http.Post(l.url, "application/json", strings.NewReader(string(task03("task-1", "completed", "forged"))))
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}, http.StatusUnauthorized, "has no signature"},
		{"body changed after signing", func() int {
			n := push.Notification{Config: cfg, TaskID: "task-1", TaskVersion: 4, Body: task03("task-1", "working", "x")}
			return deliverer(t, ag.set, ag.base, &http.Client{Transport: tamper{}}).Deliver(ctx, n).StatusCode
		}, http.StatusUnauthorized, "body does not match its signature"},
		{"wrong notification token", func() int {
			n := push.Notification{Config: a2a.PushNotificationConfig{URL: l.url, Token: "guess"}, TaskID: "task-1", TaskVersion: 5, Body: task03("task-1", "working", "x")}
			return d.Deliver(ctx, n).StatusCode
		}, http.StatusUnauthorized, "token does not match"},
		{"signed for another webhook", func() int {
			n := push.Notification{Config: a2a.PushNotificationConfig{URL: l.url + "elsewhere", Token: "hook-tok"}, TaskID: "task-1", TaskVersion: 6, Body: task03("task-1", "working", "x")}
			return d.Deliver(ctx, n).StatusCode
		}, http.StatusUnauthorized, "for another audience"},
		{"signed by a key the agent does not publish", func() int {
			n := push.Notification{Config: cfg, TaskID: "task-1", TaskVersion: 7, Body: task03("task-1", "working", "x")}
			return deliverer(t, other, ag.base, nil).Deliver(ctx, n).StatusCode
		}, http.StatusServiceUnavailable, "unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := l.stderr.String()
			assert.Equal(t, tc.status, tc.send())
			logged := strings.TrimPrefix(l.stderr.String(), before)
			assert.Regexp(t, `^`+timeRE+` refused POST /\S* from 127\.0\.0\.1:\d+: \d{3} `, logged)
			assert.Contains(t, logged, tc.says)
		})
	}
	assert.Len(t, strings.Split(strings.TrimSpace(l.stdout.String()), "\n"), 2, "nothing refused is printed")
	assert.NotContains(t, l.stdout.String()+l.stderr.String(), "hook-tok", "the token is never printed")

	assert.Equal(t, cli.ExitOK, l.stop(), "an interrupt is the listener's normal end")
	assert.Contains(t, l.stderr.String(), "a2a webhook: stopped")
}

func TestWebhookListenJSON(t *testing.T) {
	ag := newAgentKeys(t)
	l := listen(t, "127.0.0.1:0", "--jwks", ag.jwksURL, "--json")
	d := deliverer(t, ag.set, ag.base, nil)
	sent := [][]byte{task03("t-9", "working", "step 1 of 2"), task03("t-9", "input-required", "What is your name?")}
	for i, body := range sent {
		res := d.Deliver(context.Background(), push.Notification{Config: a2a.PushNotificationConfig{URL: l.url}, TaskID: "t-9", TaskVersion: int64(i + 1), Body: body})
		require.Equal(t, push.Delivered, res.Outcome, res.Err)
	}
	type line struct {
		Time        time.Time       `json:"time"`
		EventID     string          `json:"eventId"`
		TaskID      string          `json:"taskId"`
		Version     int64           `json:"version"`
		State       string          `json:"state"`
		Text        string          `json:"text"`
		ContentType string          `json:"contentType"`
		Body        json.RawMessage `json:"body"`
	}
	var got []line
	for _, s := range strings.Split(strings.TrimSpace(l.stdout.String()), "\n") {
		var ln line
		require.NoError(t, json.Unmarshal([]byte(s), &ln), s)
		got = append(got, ln)
	}
	require.Len(t, got, 2)
	for i, want := range []struct{ state, text string }{{"working", "step 1 of 2"}, {"input-required", "What is your name?"}} {
		assert.Equal(t, push.EventID("t-9", int64(i+1)), got[i].EventID)
		assert.Equal(t, "t-9", got[i].TaskID)
		assert.Equal(t, int64(i+1), got[i].Version)
		assert.Equal(t, want.state, got[i].State)
		assert.Equal(t, want.text, got[i].Text)
		assert.Equal(t, push.ContentTypeJSON, got[i].ContentType)
		assert.JSONEq(t, string(sent[i]), string(got[i].Body), "the body as delivered")
		assert.WithinDuration(t, time.Now(), got[i].Time, time.Minute)
	}
}

func TestWebhookListenWithoutKeys(t *testing.T) {
	ag := newAgentKeys(t)
	down := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(down.Close)
	l := listen(t, "127.0.0.1:0", "--agent", down.URL)
	assert.Contains(t, l.stderr.String(), "warning: GET "+down.URL+"/.well-known/jwks.json answered 404 Not Found; notifications are refused until the keys can be read")
	res := deliverer(t, ag.set, ag.base, nil).Deliver(context.Background(), push.Notification{Config: a2a.PushNotificationConfig{URL: l.url}, TaskID: "t", TaskVersion: 1, Body: []byte(`{}`)})
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode, "unavailable keys: the agent retries later")
	assert.Empty(t, l.stdout.String())
}

func TestWebhookListenAudience(t *testing.T) {
	ag := newAgentKeys(t)
	// The push config registered a path: the listener is told its URL.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := probe.Addr().String()
	require.NoError(t, probe.Close())
	hook := "http://" + addr + "/hooks/a2a"
	l := listen(t, addr, "--agent", ag.base, "--audience", hook)
	assert.Equal(t, hook, l.url)
	d := deliverer(t, ag.set, ag.base, nil)
	res := d.Deliver(context.Background(), push.Notification{Config: a2a.PushNotificationConfig{URL: hook}, TaskID: "t", TaskVersion: 1, Body: task03("t", "completed", "ok")})
	require.Equal(t, push.Delivered, res.Outcome, res.Err)
	assert.Contains(t, l.stdout.String(), "task t v1 completed: ok")
}

func TestWebhookUsage(t *testing.T) {
	ag := newAgentKeys(t)
	busy := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(busy.Close)
	busyAddr := strings.TrimPrefix(busy.URL, "http://")
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"webhook"}, cli.ExitUsage, "expected: a2a webhook listen ADDR --agent URL"},
		{[]string{"webhook", "serve", "127.0.0.1:0"}, cli.ExitUsage, "expected: a2a webhook listen ADDR"},
		{[]string{"webhook", "listen", "--agent", ag.base}, cli.ExitUsage, "expected listen ADDR, got 0 argument(s)"},
		{[]string{"webhook", "listen", "127.0.0.1:0"}, cli.ExitUsage, "give the agent's URL (--agent URL) or its keys' URL (--jwks URL)"},
		{[]string{"webhook", "listen", "127.0.0.1:0", "--jwks", "ftp://example.com/k"}, cli.ExitUsage, `"ftp://example.com/k" is not an http(s) URL`},
		{[]string{"webhook", "listen", "127.0.0.1:0", "--agent", ag.base, "--binding", "rest"}, cli.ExitUsage, "flag provided but not defined: -binding"},
		{[]string{"webhook", "listen", busyAddr, "--agent", ag.base}, cli.ExitError, "a2a webhook: listen on " + busyAddr},
		{[]string{"webhook", "listen", "-h"}, cli.ExitOK, "-audience"},
		{[]string{"webhook", "--help"}, cli.ExitOK, "Usage: a2a webhook listen ADDR [flags]"},
	} {
		r := run(t, runOpts{}, tc.args...)
		assert.Equal(t, tc.code, r.code, tc.args)
		assert.Contains(t, r.stderr, tc.says, tc.args)
	}
}

// TestWebhookListenWithTheLocalServer is the whole round trip: "a2a send
// --push-url" registers the listener with the local server, whose push
// pipeline signs and delivers each change of the task to "a2a webhook
// listen", which verifies and prints it.
func TestWebhookListenWithTheLocalServer(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{Token: "tok-s3cret", Env: map[string]string{"A2A_PUSH_ALLOW_INSECURE": "true"}})
	for _, tc := range []struct {
		name   string
		listen []string
		parse  func(line string) (state, text string, ok bool)
	}{
		{"lines", nil, func(line string) (string, string, bool) {
			m := regexp.MustCompile(`^` + timeRE + ` task \S+ v\d+ ([a-z-]+)(?:: (.*))?$`).FindStringSubmatch(line)
			if m == nil {
				return "", "", false
			}
			return m[1], m[2], true
		}},
		{"json", []string{"--json"}, func(line string) (string, string, bool) {
			var n struct{ State, Text string }
			err := json.Unmarshal([]byte(line), &n)
			return n.State, n.Text, err == nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := listen(t, append([]string{"127.0.0.1:0", "--agent", srv.URL, "--token", "hook-tok"}, tc.listen...)...)
			assert.NotContains(t, l.stderr.String(), "warning", "the local server publishes its keys")

			r := run(t, runOpts{env: map[string]string{cli.TokenEnv: "tok-s3cret"}},
				"send", srv.URL, "long 3", "--push-url", l.url, "--push-token", "hook-tok", "--wait", "--json")
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			taskID := decodeTask(t, r.stdout).ID

			// Notifications of one task may arrive in any order (a receiver
			// orders them by version): wait for the completed one.
			var final string
			require.Eventually(t, func() bool {
				for _, line := range strings.Split(strings.TrimSpace(l.stdout.String()), "\n") {
					if state, text, _ := tc.parse(line); state == "completed" {
						final = text
						return true
					}
				}
				return false
			}, 10*time.Second, 10*time.Millisecond, "no completed notification: %s %s", l.stdout, l.stderr)
			assert.Equal(t, "Finished all 3 steps.", final)
			for _, line := range strings.Split(strings.TrimSpace(l.stdout.String()), "\n") {
				_, _, ok := tc.parse(line)
				assert.True(t, ok, "every line parses: %q", line)
			}
			assert.Contains(t, l.stdout.String(), taskID)
			assert.Contains(t, l.stdout.String(), "working", "progress was notified too")
			assert.NotContains(t, l.stderr.String(), "refused", "every notification verifies")
		})
	}
}
