package client_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// v1Agent is an agent for the official a2a-go v2 server:
//
//	"ask"   input-required with a question; the reply completes the task
//	"slow"  working until canceled
//	"file"  completed with a file artifact and a data artifact
//	other   completed with the artifact "echo: <text>"
type v1Agent struct{}

func (v1Agent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[v1.Event, error] {
	return func(yield func(v1.Event, error) bool) {
		text := ""
		for _, p := range ec.Message.Parts {
			text += p.Text()
		}
		if ec.StoredTask != nil { // a reply to the question
			yield(v1.NewStatusUpdateEvent(ec, v1.TaskStateCompleted, v1.NewMessage(v1.MessageRoleAgent, v1.NewTextPart("You answered: "+text))), nil)
			return
		}
		if !yield(v1.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		switch text {
		case "ask":
			yield(v1.NewStatusUpdateEvent(ec, v1.TaskStateInputRequired, v1.NewMessage(v1.MessageRoleAgent, v1.NewTextPart("What is your name?"))), nil)
		case "slow":
			if !yield(v1.NewStatusUpdateEvent(ec, v1.TaskStateWorking, v1.NewMessage(v1.MessageRoleAgent, v1.NewTextPart("Working slowly..."))), nil) {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
			}
		case "file":
			file := v1.NewRawPart([]byte("hello file"))
			file.Filename, file.MediaType = "hello.txt", "text/plain"
			if !yield(v1.NewArtifactEvent(ec, file), nil) {
				return
			}
			if !yield(v1.NewArtifactEvent(ec, v1.NewDataPart(map[string]any{"n": 1})), nil) {
				return
			}
			yield(v1.NewStatusUpdateEvent(ec, v1.TaskStateCompleted, nil), nil)
		default:
			ev := v1.NewArtifactEvent(ec, v1.NewTextPart("echo: "+text))
			ev.Artifact.Name = "echo"
			if !yield(ev, nil) {
				return
			}
			yield(v1.NewStatusUpdateEvent(ec, v1.TaskStateCompleted, v1.NewMessage(v1.MessageRoleAgent, v1.NewTextPart("Done."))), nil)
		}
	}
}

func (v1Agent) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[v1.Event, error] {
	return func(yield func(v1.Event, error) bool) {
		yield(v1.NewStatusUpdateEvent(ec, v1.TaskStateCanceled, nil), nil)
	}
}

// startV1 serves v1Agent with the official a2a-go v2.3.1 server: JSON-RPC
// at /rpc, REST under /rest, the card (1.0 supportedInterfaces only, REST
// first when restFirst) at the well-known path.
func startV1(t *testing.T, restFirst bool, log *clienttest.RequestLog, opts ...a2asrv.RequestHandlerOption) string {
	t.Helper()
	store := taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: func(context.Context) (string, error) { return "tester", nil }})
	h := a2asrv.NewHandler(v1Agent{}, append([]a2asrv.RequestHandlerOption{a2asrv.WithTaskStore(store)}, opts...)...)
	mux := http.NewServeMux()
	hs := httptest.NewServer(log.Wrap(mux))
	t.Cleanup(hs.Close)
	rpc := v1.NewAgentInterface(hs.URL+"/rpc", v1.TransportProtocolJSONRPC)
	rest := v1.NewAgentInterface(hs.URL+"/rest", v1.TransportProtocolHTTPJSON)
	ifaces := []*v1.AgentInterface{rpc, rest}
	if restFirst {
		ifaces = []*v1.AgentInterface{rest, rpc}
	}
	card := &v1.AgentCard{
		Name: "v1 test agent", Description: "the official a2a-go server", Version: "2.3.1",
		SupportedInterfaces: ifaces,
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []v1.AgentSkill{{ID: "echo", Name: "Echo", Description: "echoes", Tags: []string{"test"}}},
	}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	return hs.URL
}

func TestOfficialV1Server(t *testing.T) {
	for _, tc := range []struct {
		name      string
		restFirst bool
		binding   string // forced binding; "" follows the card
		want      string
	}{
		{"JSON-RPC from the card's order", false, "", client.BindingJSONRPC},
		{"REST from the card's order", true, "", client.BindingREST},
		{"REST forced", false, "rest", client.BindingREST},
		{"JSON-RPC forced", true, "jsonrpc", client.BindingJSONRPC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &clienttest.RequestLog{}
			base := startV1(t, tc.restFirst, log)
			c := client.New(base, client.Options{Binding: tc.binding})
			ctx := clienttest.Context(t)

			card, err := c.Card(ctx)
			require.NoError(t, err)
			assert.Equal(t, "v1 test agent", card.Name, "a 1.0 card is read into the 0.3 model")
			assert.Len(t, card.Interfaces, 2)
			clienttest.RequireEndpoint(t, c, a2a.V10, tc.want)
			log.Take()

			// Blocking send: the wrapped {"task":...} result, 1.0 enums.
			done := clienttest.SendHello(t, c)
			assert.Equal(t, a2a.RoleAgent, done.Status.Message.Role)
			require.NotEmpty(t, done.History)
			assert.Equal(t, a2a.RoleUser, done.History[0].Role)
			assert.Equal(t, a2a.PartKindText, done.History[0].Parts[0].Kind)

			got, err := c.GetTask(ctx, a2a.TaskQueryParams{ID: done.ID})
			require.NoError(t, err)
			assert.Equal(t, done.ID, got.ID)
			assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)

			// Parts other than text convert to the 0.3 model.
			files := clienttest.Send(t, c, "file", "", true)
			require.Len(t, files.Artifacts, 2)
			fp := files.Artifacts[0].Parts[0]
			require.Equal(t, a2a.PartKindFile, fp.Kind)
			assert.Equal(t, "aGVsbG8gZmlsZQ==", fp.File.Bytes)
			assert.Equal(t, "hello.txt", fp.File.Name)
			assert.Equal(t, "text/plain", fp.File.MimeType)
			dp := files.Artifacts[1].Parts[0]
			require.Equal(t, a2a.PartKindData, dp.Kind)
			assert.JSONEq(t, `{"n":1}`, string(dp.Data))

			// Input required, then the reply on the same task.
			asked := clienttest.Send(t, c, "ask", "", true)
			require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
			assert.Equal(t, "What is your name?", client.Interrupt(asked).Text)
			answered := clienttest.Send(t, c, "Ada", asked.ID, true)
			assert.Equal(t, asked.ID, answered.ID)
			assert.Equal(t, a2a.TaskStateCompleted, answered.Status.State)
			assert.Equal(t, "You answered: Ada", answered.Status.Message.Text())

			// returnImmediately, then cancel; Wait sees the canceled state.
			slow := clienttest.CancelSlow(t, c)
			final, err := c.Wait(ctx, slow.ID, client.WaitOptions{MinInterval: 5 * time.Millisecond})
			require.NoError(t, err)
			assert.Equal(t, a2a.TaskStateCanceled, final.Status.State)

			// List with a state filter (TASK_STATE_* on the wire).
			list, err := c.ListTasks(ctx, a2a.ListTasksParams{Status: a2a.TaskStateCompleted})
			require.NoError(t, err)
			assert.Equal(t, 3, list.TotalSize)
			for _, task := range list.Tasks {
				assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
			}
			all, err := c.ListTasks(ctx, a2a.ListTasksParams{})
			require.NoError(t, err)
			assert.Equal(t, 4, all.TotalSize)

			// Errors: ErrorInfo reasons map back to A2A codes.
			_, err = c.GetTask(ctx, a2a.TaskQueryParams{ID: "no-such-task"})
			assert.ErrorIs(t, err, a2a.ErrTaskNotFound)
			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, "TASK_NOT_FOUND", ce.Reason)
			_, err = c.CancelTask(ctx, a2a.TaskIDParams{ID: done.ID})
			assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
			_, err = c.SetPushConfig(ctx, a2a.TaskPushNotificationConfig{TaskID: done.ID, PushNotificationConfig: a2a.PushNotificationConfig{URL: "https://example.com/hook"}})
			assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported)

			// Every protocol call carried A2A-Version: 1.0 on the chosen binding.
			for _, req := range log.Take() {
				s := req.String() + " A2A-Version=" + req.Version
				assert.True(t, strings.HasSuffix(s, "A2A-Version=1.0"), s)
				if tc.want == client.BindingJSONRPC {
					assert.True(t, strings.HasPrefix(s, "POST /rpc "), s)
				} else {
					assert.Contains(t, s, " /rest/", s)
				}
			}
		})
	}
}

// TestOfficialV1PushConfigs: push config CRUD against the official server
// with push notifications configured.
func TestOfficialV1PushConfigs(t *testing.T) {
	for _, binding := range []string{client.BindingJSONRPC, client.BindingREST} {
		t.Run(binding, func(t *testing.T) {
			base := startV1(t, false, &clienttest.RequestLog{}, a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(nil)))
			c := client.New(base, client.Options{Binding: binding})
			ctx := clienttest.Context(t)
			task := clienttest.Send(t, c, "hello", "", true)

			cfg := a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: a2a.PushNotificationConfig{
				ID: "hook-1", URL: "https://example.com/hook", Token: "notify-token",
				Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "cred"},
			}}
			set, err := c.SetPushConfig(ctx, cfg)
			require.NoError(t, err)
			assert.Equal(t, cfg, *set)

			got, err := c.GetPushConfig(ctx, a2a.GetTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "hook-1"})
			require.NoError(t, err)
			assert.Equal(t, cfg, *got)

			list, err := c.ListPushConfigs(ctx, task.ID)
			require.NoError(t, err)
			assert.Equal(t, []a2a.TaskPushNotificationConfig{cfg}, list)

			require.NoError(t, c.DeletePushConfig(ctx, a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "hook-1"}))
			list, err = c.ListPushConfigs(ctx, task.ID)
			require.NoError(t, err)
			assert.Empty(t, list)
		})
	}
}
