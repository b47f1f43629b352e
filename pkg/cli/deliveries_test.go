package cli_test

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/cli"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// webhook is a receiver whose answer the test sets, on an address that
// can be down (nothing listens) before it is up.
type webhook struct {
	addr string
	mu   sync.Mutex
	code int
	srv  *http.Server
}

// newWebhook reserves a loopback address and leaves it down.
func newWebhook(t *testing.T, code int) *webhook {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	w := &webhook{addr: ln.Addr().String(), code: code}
	require.NoError(t, ln.Close())
	t.Cleanup(func() {
		if w.srv != nil {
			_ = w.srv.Close()
		}
	})
	return w
}

func (w *webhook) url() string { return "http://" + w.addr + "/hook" }

// up starts listening.
func (w *webhook) up(t *testing.T) {
	ln, err := net.Listen("tcp", w.addr)
	require.NoError(t, err)
	w.srv = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		w.mu.Lock()
		defer w.mu.Unlock()
		rw.WriteHeader(w.code)
	}), ReadHeaderTimeout: time.Second}
	go func() { _ = w.srv.Serve(ln) }()
}

func (w *webhook) answer(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.code = code
}

// deliveriesOf reads a task's delivery log with the command's --json.
func deliveriesOf(t *testing.T, o runOpts, url, taskID string) []a2a.Delivery {
	t.Helper()
	r := run(t, o, "deliveries", url, taskID, "--json")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	var res a2a.ListDeliveriesResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	return res.Deliveries
}

// waitDeliveries polls the log until every delivery is in state.
func waitDeliveries(t *testing.T, o runOpts, url, taskID, state string) []a2a.Delivery {
	t.Helper()
	var ds []a2a.Delivery
	require.Eventually(t, func() bool {
		ds = deliveriesOf(t, o, url, taskID)
		for _, d := range ds {
			if d.State != state {
				return false
			}
		}
		return len(ds) > 0
	}, 20*time.Second, 20*time.Millisecond, "the deliveries of %s are not all %s: %+v", taskID, state, ds)
	return ds
}

// The delivery log and the redrive through the a2a command, on the local
// server with each store: a webhook that is down and then up shows its
// failed attempt and the one that delivered; a dead-lettered notification
// is sent again by "a2a deliveries retry".
func TestDeliveriesCommands(t *testing.T) {
	for name, opts := range map[string]func(t *testing.T) clienttest.Options{
		"memory": func(*testing.T) clienttest.Options { return clienttest.Options{} },
		"dynamodb": func(t *testing.T) clienttest.Options {
			s, changes := clienttest.DynamoStoreWithChanges(t)
			return clienttest.Options{Store: s, Changes: changes}
		},
	} {
		t.Run(name, func(t *testing.T) {
			so := opts(t)
			so.Token = "tok-hooks"
			so.Env = map[string]string{"A2A_PUSH_ALLOW_INSECURE": "true"}
			so.Push = app.PushOptions{Retry: push.RetryPolicy{MaxAttempts: 10, BaseDelay: 200 * time.Millisecond, MaxDelay: 200 * time.Millisecond}}
			srv := clienttest.Start(t, so)
			o := runOpts{env: map[string]string{cli.TokenEnv: "tok-hooks"}}

			// A webhook that is down, then up.
			flaky := newWebhook(t, http.StatusNoContent)
			r := run(t, o, "send", srv.URL, "hello", "--wait", "--json", "--push-url", flaky.url())
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			task := decodeTask(t, r.stdout)
			waitDeliveries(t, o, srv.URL, task.ID, a2a.DeliveryRetrying)
			flaky.up(t)
			ds := waitDeliveries(t, o, srv.URL, task.ID, a2a.DeliveryDelivered)
			// A notification sent while the webhook was down failed, then
			// was delivered (one sent after it came up has one attempt).
			var retried *a2a.Delivery
			for i, d := range ds {
				assert.Equal(t, 204, d.Attempts[len(d.Attempts)-1].StatusCode, "%+v", d)
				if len(d.Attempts) >= 2 && retried == nil {
					retried = &ds[i]
				}
			}
			require.NotNil(t, retried, "a delivery retried: %+v", ds)
			assert.Equal(t, a2a.DeliveryRetrying, retried.Attempts[0].State)
			assert.Contains(t, retried.Attempts[0].Error, "connection refused")
			r = run(t, o, "deliveries", srv.URL, task.ID)
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			assert.Contains(t, r.stdout, retried.EventID+" to config "+task.ID+": delivered\n", "the config set without an id is the task's")
			assert.Contains(t, r.stdout, "  #1  "+retried.Attempts[0].At+"  retrying: POST to "+flaky.addr+": ", "the failed attempt")
			assert.Contains(t, r.stdout, "204 delivered\n", "and the one that delivered")
			assert.NotContains(t, r.stdout, "a2a deliveries retry", "nothing to redrive")

			// A webhook that refuses (a permanent failure: dead-lettered at
			// once), then accepts.
			refusing := newWebhook(t, http.StatusBadRequest)
			refusing.up(t)
			r = run(t, o, "send", srv.URL, "hello", "--wait", "--json", "--push-url", refusing.url())
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			task = decodeTask(t, r.stdout)
			ds = waitDeliveries(t, o, srv.URL, task.ID, a2a.DeliveryFailed)
			r = run(t, o, "deliveries", srv.URL, task.ID)
			assert.Contains(t, r.stdout, ": failed, dead-lettered\n")
			assert.Contains(t, r.stdout, "400 failed: webhook "+refusing.addr+" answered 400 Bad Request")
			assert.Contains(t, r.stdout, "a2a deliveries retry "+srv.URL+" "+task.ID+" [EVENT]")

			refusing.answer(http.StatusOK)
			event := ds[len(ds)-1].EventID
			r = run(t, o, "deliveries", "retry", srv.URL, task.ID, event)
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			assert.Contains(t, r.stdout, "queued "+event+" to config "+task.ID+" again (redrive 1)")
			require.Eventually(t, func() bool {
				for _, d := range deliveriesOf(t, o, srv.URL, task.ID) {
					if d.EventID == event {
						return d.State == a2a.DeliveryDelivered
					}
				}
				return false
			}, 20*time.Second, 20*time.Millisecond, "the redriven delivery arrives")
			r = run(t, o, "deliveries", srv.URL, task.ID)
			assert.Contains(t, r.stdout, event+" to config "+task.ID+": delivered, redriven 1×\n")

			r = run(t, o, "deliveries", "retry", srv.URL, task.ID, event)
			assert.Equal(t, cli.ExitError, r.code)
			assert.Contains(t, r.stderr, "is delivered; only failed (dead-lettered) deliveries are redriven")
			if len(ds) > 1 { // without EVENT: every failed one left
				r = run(t, o, "deliveries", "retry", srv.URL, task.ID)
				require.Equal(t, cli.ExitOK, r.code, "the others: %s", r.stderr)
				assert.NotContains(t, r.stdout, "queued "+event+" ")
				assert.Positive(t, strings.Count(r.stdout, "queued "))
			}
		})
	}
}
