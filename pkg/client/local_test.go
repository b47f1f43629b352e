package client_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/httpstatus"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// TestLocalServer drives this project's server over both bindings, in
// both protocol versions, through the whole surface the server has today.
func TestLocalServer(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{Token: "s3cret"})
	rec := &clienttest.RequestLog{}
	proxy := httptest.NewServer(rec.Wrap(reverse(srv.URL)))
	t.Cleanup(proxy.Close)

	for _, tc := range []struct {
		version a2a.Version
		binding string
		prefix  string // path prefix of every protocol call
	}{
		{a2a.V03, client.BindingJSONRPC, "POST /"},
		{a2a.V03, client.BindingREST, "/rest/v1/"},
		{a2a.V10, client.BindingJSONRPC, "POST /"},
		{a2a.V10, client.BindingREST, "/rest/"},
	} {
		t.Run(string(tc.version)+"/"+tc.binding, func(t *testing.T) {
			c := client.New(proxy.URL, client.Options{Token: "s3cret", Binding: tc.binding, Version: tc.version})
			ctx := clienttest.Context(t)
			clienttest.RequireEndpoint(t, c, tc.version, tc.binding)
			rec.Take()

			done := clienttest.SendHello(t, c)

			got, err := c.GetTask(ctx, a2a.TaskQueryParams{ID: done.ID})
			require.NoError(t, err)
			assert.Equal(t, done.ID, got.ID)
			assert.Equal(t, "echo: hello", clienttest.ArtifactText(got, "echo"))

			// Non-blocking send, then Wait reports the artifact growing.
			long := clienttest.Send(t, c, "long 3", "", false)
			assert.Contains(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, long.Status.State)
			var updates []client.Update
			final, err := c.Wait(ctx, long.ID, client.WaitOptions{Initial: long, MinInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond,
				OnUpdate: func(u client.Update) { updates = append(updates, u) }})
			require.NoError(t, err)
			assert.Equal(t, a2a.TaskStateCompleted, final.Status.State)
			assert.Equal(t, "step 1 of 3step 2 of 3step 3 of 3", clienttest.ArtifactText(final, "progress"))
			var grown []string
			for _, u := range updates {
				for _, a := range u.Artifacts {
					assert.False(t, a.Replaced, "the artifact only grows")
					for _, p := range a.NewParts {
						grown = append(grown, p.Text)
					}
				}
			}
			assert.Equal(t, []string{"step 1 of 3", "step 2 of 3", "step 3 of 3"}, grown, "every part reported once, in order")
			assert.True(t, updates[0].First)
			assert.True(t, updates[len(updates)-1].StateChanged)

			// Multi-turn.
			asked := clienttest.Send(t, c, "ask Favourite colour?", "", true)
			require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
			pi := client.Interrupt(asked)
			require.NotNil(t, pi)
			assert.Equal(t, "question", pi.Type)
			assert.NotEmpty(t, pi.RequestID)
			assert.Equal(t, "Favourite colour?", pi.Text)
			answered := clienttest.Send(t, c, "blue", asked.ID, true)
			assert.Equal(t, a2a.TaskStateCompleted, answered.Status.State)
			assert.Contains(t, answered.Status.Message.Text(), "blue")

			// List, newest first, with paging.
			size := 2
			page, err := c.ListTasks(ctx, a2a.ListTasksParams{PageSize: &size})
			require.NoError(t, err)
			require.Len(t, page.Tasks, 2)
			assert.NotEmpty(t, page.NextPageToken)
			next, err := c.ListTasks(ctx, a2a.ListTasksParams{PageSize: &size, PageToken: page.NextPageToken})
			require.NoError(t, err)
			assert.NotEmpty(t, next.Tasks)
			assert.NotEqual(t, page.Tasks[0].ID, next.Tasks[0].ID)
			completed, err := c.ListTasks(ctx, a2a.ListTasksParams{Status: a2a.TaskStateCompleted})
			require.NoError(t, err)
			for _, task := range completed.Tasks {
				assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
			}

			// Cancel.
			live := clienttest.Send(t, c, "long 100", "", false)
			canceled, err := c.CancelTask(ctx, a2a.TaskIDParams{ID: live.ID})
			require.NoError(t, err)
			assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)

			// Errors carry their A2A code whatever the binding.
			_, err = c.CancelTask(ctx, a2a.TaskIDParams{ID: done.ID})
			assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
			_, err = c.GetTask(ctx, a2a.TaskQueryParams{ID: "no-such-task"})
			assert.ErrorIs(t, err, a2a.ErrTaskNotFound)
			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, "TASK_NOT_FOUND", ce.Reason)
			if tc.binding == client.BindingREST {
				assert.Equal(t, http.StatusNotFound, ce.HTTPStatus)
			}
			_, err = c.SendMessage(ctx, a2a.MessageSendParams{Message: clienttest.TextMessage("more"), Configuration: nil, Metadata: nil})
			require.NoError(t, err)
			_, err = c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{TaskID: done.ID, Parts: []a2a.Part{a2a.TextPart("again")}}})
			assert.ErrorIs(t, err, a2a.ErrUnsupportedOperation, "a terminal task takes no message")

			// Push configs: the task is finished, so nothing is delivered.
			set, err := c.SetPushConfig(ctx, a2a.TaskPushNotificationConfig{TaskID: done.ID, PushNotificationConfig: a2a.PushNotificationConfig{URL: "https://hooks.example.com/a2a", Token: "hook-tok"}})
			require.NoError(t, err)
			cfgID := set.PushNotificationConfig.ID
			require.NotEmpty(t, cfgID, "the server names the config")
			gotCfg, err := c.GetPushConfig(ctx, a2a.GetTaskPushNotificationConfigParams{ID: done.ID, PushNotificationConfigID: cfgID})
			require.NoError(t, err)
			assert.Equal(t, "https://hooks.example.com/a2a", gotCfg.PushNotificationConfig.URL)
			assert.Equal(t, service.Redacted, gotCfg.PushNotificationConfig.Token, "the token is write-only")
			list, err := c.ListPushConfigs(ctx, done.ID)
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, cfgID, list[0].PushNotificationConfig.ID)
			require.NoError(t, c.DeletePushConfig(ctx, a2a.DeleteTaskPushNotificationConfigParams{ID: done.ID, PushNotificationConfigID: cfgID}))
			list, err = c.ListPushConfigs(ctx, done.ID)
			require.NoError(t, err)
			assert.Empty(t, list)
			_, err = c.SetPushConfig(ctx, a2a.TaskPushNotificationConfig{TaskID: done.ID, PushNotificationConfig: a2a.PushNotificationConfig{URL: "http://169.254.169.254/latest"}})
			assert.ErrorIs(t, err, a2a.ErrInvalidParams, "the server refuses a webhook at the metadata address")

			ext, err := c.ExtendedCard(ctx)
			require.NoError(t, err)
			assert.Equal(t, "a2a-lambda demo agent", ext.Name)

			for _, req := range rec.Take() {
				p := req.String()
				if tc.binding == client.BindingJSONRPC {
					assert.Equal(t, "POST /", p)
				} else {
					assert.Contains(t, p, tc.prefix)
				}
			}
		})
	}
}

func TestLocalServerAuth(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{Token: "s3cret"})
	for _, binding := range []string{client.BindingJSONRPC, client.BindingREST} {
		for name, token := range map[string]string{"no token": "", "wrong token": "guess"} {
			t.Run(binding+"/"+name, func(t *testing.T) {
				c := client.New(srv.URL, client.Options{Token: token, Binding: binding})
				_, err := c.GetTask(clienttest.Context(t), a2a.TaskQueryParams{ID: "x"})
				require.Error(t, err)
				assert.ErrorIs(t, err, client.ErrUnauthenticated)
				var ce *client.Error
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, http.StatusUnauthorized, ce.HTTPStatus)
				assert.NotContains(t, err.Error(), "guess", "the token is never echoed")
			})
		}
	}
}

func TestCardRevalidation(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{})
	var mu sync.Mutex
	var inm []string
	var statuses []int
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inm = append(inm, r.Header.Get("If-None-Match"))
		mu.Unlock()
		rw := httpstatus.NewWriter(w)
		reverse(srv.URL).ServeHTTP(rw, r)
		mu.Lock()
		statuses = append(statuses, rw.Status())
		mu.Unlock()
	}))
	t.Cleanup(proxy.Close)

	c := client.New(proxy.URL, client.Options{})
	first, err := c.Card(clienttest.Context(t))
	require.NoError(t, err)
	assert.False(t, first.Revalidated)
	assert.NotEmpty(t, first.ETag)
	assert.Equal(t, "a2a-lambda demo agent", first.Name)
	second, err := c.Card(clienttest.Context(t))
	require.NoError(t, err)
	assert.True(t, second.Revalidated, "the server answered 304 and the cached card was reused")
	assert.Equal(t, first.Name, second.Name)
	assert.JSONEq(t, string(first.Raw), string(second.Raw))
	assert.Equal(t, []string{"", first.ETag}, inm)
	assert.Equal(t, []int{http.StatusOK, http.StatusNotModified}, statuses)

	// The card lists both bindings in both versions; 1.0 JSON-RPC is
	// preferred.
	require.Len(t, first.Interfaces, 4)
	ep, err := client.SelectInterface(first, "", "")
	require.NoError(t, err)
	assert.Equal(t, client.AgentInterface{URL: proxy.URL, Binding: client.BindingJSONRPC, Version: a2a.V10}, ep)
	ep, err = client.SelectInterface(first, a2a.V03, "")
	require.NoError(t, err)
	assert.Equal(t, client.AgentInterface{URL: proxy.URL, Binding: client.BindingJSONRPC, Version: a2a.V03}, ep)
}

// reverse forwards requests to base, keeping the Host of the original
// request so that cards advertise the proxy's URL.
func reverse(base string) http.Handler {
	u, err := url.Parse(base)
	if err != nil {
		panic(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}
