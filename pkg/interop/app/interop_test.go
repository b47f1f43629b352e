package app

// Interoperability: the official a2a-go clients, unmodified, drive the local
// server over real HTTP, on the memory store and on the DynamoDB store
// (moto), with authentication off and with a bearer token. One scenario
// (send, get, list, cancel, push config create/get/list/delete, errors)
// runs through every client, against the same running handler and the same
// card:
//   - a2a-go v2.3.1, native A2A 1.0, over JSON-RPC and over HTTP+JSON;
//   - a2a-go v2.3.1 in its A2A 0.3 compatibility mode (a2acompat/a2av0),
//     over JSON-RPC and over HTTP+JSON;
//   - a2a-go v0.3.15 (JSON-RPC), the 0.3 SDK.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

const interopToken = "interop-token"

// storeKind names the task store a server runs on.
type storeKind string

const (
	memoryStore storeKind = "memory"
	dynamoStore storeKind = "dynamodb"
)

// startLocal serves the demo agent (no simulated work, 10 ms between long
// steps) on a real loopback listener, on a new store of kind, recording its
// requests in log.
func startLocal(t *testing.T, withAuth bool, kind storeKind, log *clienttest.RequestLog) string {
	t.Helper()
	o := clienttest.Options{Wrap: log.Wrap}
	if withAuth {
		o.Token = interopToken
	}
	if kind == dynamoStore {
		o.Store = clienttest.DynamoStore(t)
	}
	return clienttest.Start(t, o).URL
}

// bearer adds a bearer token to every request, as a client configured with
// credentials does.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(withAuth bool) *http.Client {
	if withAuth {
		return &http.Client{Transport: bearer{interopToken}, Timeout: 30 * time.Second}
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// view is what the scenario checks of a task, whatever the client's types.
type view struct {
	id, contextID, state, statusText string
	artifacts                        map[string]string // name -> text of its parts
}

// pushView is what the scenario checks of a push config.
type pushView struct{ id, taskID, url string }

// errNoList: the client cannot list tasks over this transport (a2a-go's
// 0.3 compatibility JSON-RPC transport refuses ListTasks itself).
var errNoList = errors.New("the client does not list tasks over this transport")

// mapped turns a client's (answer, error) into the scenario's view of the
// answer.
func mapped[T, V any](view func(T) V) func(T, error) (V, error) {
	return func(x T, err error) (V, error) {
		if err != nil {
			var zero V
			return zero, err
		}
		return view(x), nil
	}
}

// mappedAll is mapped for a list of answers.
func mappedAll[T, V any](view func(T) V) func([]T, error) ([]V, error) {
	return func(xs []T, err error) ([]V, error) {
		if err != nil {
			return nil, err
		}
		out := make([]V, len(xs))
		for i, x := range xs {
			out[i] = view(x)
		}
		return out, nil
	}
}

// driver speaks to the server through one official client.
type driver interface {
	cardName() string
	send(ctx context.Context, text string, cont *view, blocking bool) (view, error)
	get(ctx context.Context, id string) (view, error)
	list(ctx context.Context, contextID string) ([]string, error)
	cancel(ctx context.Context, id string) (view, error)
	setPush(ctx context.Context, taskID, configID, url string) (pushView, error)
	getPush(ctx context.Context, taskID, configID string) (pushView, error)
	listPush(ctx context.Context, taskID string) ([]pushView, error)
	deletePush(ctx context.Context, taskID, configID string) error
	isNotFound(error) bool
	isNotCancelable(error) bool
	isUnsupported(error) bool
}

func TestInteropOfficialClients(t *testing.T) {
	clients := []struct {
		name string
		open func(t *testing.T, url string, withAuth bool) driver
		// prefix is the path every protocol call must use.
		prefix string
		// version is the A2A-Version header every call must carry.
		version string
	}{
		{"a2a-go v2.3.1 native 1.0 JSON-RPC", func(t *testing.T, url string, withAuth bool) driver {
			return openNative(t, url, withAuth, a2a.TransportProtocolJSONRPC)
		}, "POST /", "1.0"},
		{"a2a-go v2.3.1 native 1.0 HTTP+JSON", func(t *testing.T, url string, withAuth bool) driver {
			return openNative(t, url, withAuth, a2a.TransportProtocolHTTPJSON)
		}, " /rest/", "1.0"},
		{"a2a-go v0.3.15 JSON-RPC", openLegacy, "POST /", ""},
		{"a2a-go v2.3.1 compat 0.3 JSON-RPC", func(t *testing.T, url string, withAuth bool) driver {
			return openCompat(t, url, withAuth, a2a.TransportProtocolJSONRPC)
		}, "POST /", "0.3"},
		{"a2a-go v2.3.1 compat 0.3 HTTP+JSON", func(t *testing.T, url string, withAuth bool) driver {
			return openCompat(t, url, withAuth, a2a.TransportProtocolHTTPJSON)
		}, " /rest/", "0.3"},
	}
	for _, run := range []struct {
		store    storeKind
		withAuth bool
	}{{memoryStore, false}, {memoryStore, true}, {dynamoStore, true}} {
		mode := string(run.store) + "/auth off"
		if run.withAuth {
			mode = string(run.store) + "/bearer auth"
		}
		withAuth := run.withAuth
		log := &clienttest.RequestLog{}
		url := startLocal(t, withAuth, run.store, log)
		for _, c := range clients {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				d := c.open(t, url, withAuth)
				log.Take() // card discovery
				runScenario(t, d)
				reqs := log.Take()
				require.NotEmpty(t, reqs)
				for _, req := range reqs {
					p := req.String()
					if c.prefix == "POST /" {
						assert.Equal(t, "POST /", p)
					} else {
						assert.Contains(t, p, c.prefix, "every call goes through the HTTP+JSON binding")
						assert.NotContains(t, p, "/v1/")
					}
					assert.Equal(t, c.version, req.Version, "%s: the protocol version the client asked for", p)
				}
			})
		}
	}
}

func runScenario(t *testing.T, d driver) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	assert.Equal(t, "a2a-lambda demo agent", d.cardName(), "card discovered from /.well-known/agent-card.json")

	// A blocking send returns the finished task.
	done, err := d.send(ctx, "hello", nil, true)
	require.NoError(t, err)
	assert.Equal(t, "completed", done.state)
	assert.Equal(t, "echo: hello", done.artifacts["echo"])
	assert.NotEmpty(t, done.contextID)

	// A non-blocking send returns at once; polling tasks/get sees it finish.
	long, err := d.send(ctx, "long 3", nil, false)
	require.NoError(t, err)
	assert.Contains(t, []string{"submitted", "working"}, long.state)
	require.Eventually(t, func() bool {
		long, err = d.get(ctx, long.id)
		return err == nil && long.state == "completed"
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "step 1 of 3step 2 of 3step 3 of 3", long.artifacts["progress"])

	// Multi-turn: ask, answer on the same task.
	asked, err := d.send(ctx, "ask What is your name?", nil, true)
	require.NoError(t, err)
	require.Equal(t, "input-required", asked.state)
	assert.Equal(t, "What is your name?", asked.statusText)
	answered, err := d.send(ctx, "Ada", &asked, true)
	require.NoError(t, err)
	assert.Equal(t, asked.id, answered.id)
	assert.Equal(t, "completed", answered.state)
	assert.Contains(t, answered.statusText, "Ada")

	// A message to a task still at work is accepted and joins it.
	live, err := d.send(ctx, "long 100", nil, false)
	require.NoError(t, err)
	more, err := d.send(ctx, "and more", &live, false)
	require.NoError(t, err, "a working task takes a message")
	assert.Equal(t, live.id, more.id)
	assert.Contains(t, []string{"submitted", "working"}, more.state)

	// Cancel a live task; a finished one cannot be canceled.
	canceled, err := d.cancel(ctx, live.id)
	require.NoError(t, err)
	assert.Equal(t, "canceled", canceled.state)
	_, err = d.cancel(ctx, done.id)
	assert.True(t, d.isNotCancelable(err), "cancel of a completed task: got %v", err)

	// A finished task takes no new message.
	_, err = d.send(ctx, "more", &done, true)
	assert.True(t, d.isUnsupported(err), "send to a completed task: got %v", err)

	// Unknown task.
	_, err = d.get(ctx, "no-such-task")
	assert.True(t, d.isNotFound(err), "get of an unknown task: got %v", err)

	// List: the caller's tasks of one context.
	ids, err := d.list(ctx, answered.contextID)
	if !errors.Is(err, errNoList) {
		require.NoError(t, err)
		assert.Equal(t, []string{answered.id}, ids)
	}

	// Push notification configs: create, get, list, delete.
	created, err := d.setPush(ctx, done.id, "hook-1", "https://hooks.example.com/a2a")
	require.NoError(t, err)
	assert.Equal(t, pushView{id: "hook-1", taskID: done.id, url: "https://hooks.example.com/a2a"}, created)
	got, err := d.getPush(ctx, done.id, "hook-1")
	require.NoError(t, err)
	assert.Equal(t, created, got)
	_, err = d.setPush(ctx, done.id, "hook-2", "https://hooks.example.com/other")
	require.NoError(t, err)
	all, err := d.listPush(ctx, done.id)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"hook-1", "hook-2"}, pushIDs(all))
	require.NoError(t, d.deletePush(ctx, done.id, "hook-1"))
	all, err = d.listPush(ctx, done.id)
	require.NoError(t, err)
	assert.Equal(t, []string{"hook-2"}, pushIDs(all))
	_, err = d.getPush(ctx, done.id, "hook-1")
	assert.True(t, d.isNotFound(err), "get of a deleted config: got %v", err)
	_, err = d.listPush(ctx, "no-such-task")
	assert.True(t, d.isNotFound(err), "configs of an unknown task: got %v", err)
}

func pushIDs(ps []pushView) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	return ids
}

// taskResult is the task a send answered with, an error when the agent
// answered with something else.
func taskResult[T, R any](res R, err error) (T, error) {
	var task T
	if err != nil {
		return task, err
	}
	task, ok := any(res).(T)
	if !ok {
		return task, errors.New("result is not a task")
	}
	return task, nil
}

// sentinels are a client library's errors for the outcomes the scenario
// checks.
type sentinels struct{ notFound, notCancelable, unsupported error }

func (s sentinels) isNotFound(err error) bool      { return errors.Is(err, s.notFound) }
func (s sentinels) isNotCancelable(err error) bool { return errors.Is(err, s.notCancelable) }
func (s sentinels) isUnsupported(err error) bool   { return errors.Is(err, s.unsupported) }

// --- a2a-go v0.3.15 ---

type legacyDriver struct {
	sentinels
	client *legacyclient.Client
	card   *legacy.AgentCard
}

var legacySentinels = sentinels{legacy.ErrTaskNotFound, legacy.ErrTaskNotCancelable, legacy.ErrUnsupportedOperation}

func openLegacy(t *testing.T, url string, withAuth bool) driver {
	ctx := context.Background()
	hc := httpClient(withAuth)
	card, err := legacycard.NewResolver(hc).Resolve(ctx, url)
	require.NoError(t, err)
	client, err := legacyclient.NewFromCard(ctx, card, legacyclient.WithJSONRPCTransport(hc))
	require.NoError(t, err)
	t.Cleanup(func() { client.Destroy() })
	return &legacyDriver{sentinels: legacySentinels, client: client, card: card}
}

func (d *legacyDriver) cardName() string { return d.card.Name }

func (d *legacyDriver) send(ctx context.Context, text string, cont *view, blocking bool) (view, error) {
	msg := legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: text})
	if cont != nil {
		msg.TaskID, msg.ContextID = legacy.TaskID(cont.id), cont.contextID
	}
	return mapped(legacyView)(taskResult[*legacy.Task](d.client.SendMessage(ctx, &legacy.MessageSendParams{Message: msg, Config: &legacy.MessageSendConfig{Blocking: &blocking}})))
}

func (d *legacyDriver) get(ctx context.Context, id string) (view, error) {
	return mapped(legacyView)(d.client.GetTask(ctx, &legacy.TaskQueryParams{ID: legacy.TaskID(id)}))
}

func (d *legacyDriver) cancel(ctx context.Context, id string) (view, error) {
	return mapped(legacyView)(d.client.CancelTask(ctx, &legacy.TaskIDParams{ID: legacy.TaskID(id)}))
}

func (d *legacyDriver) list(ctx context.Context, contextID string) ([]string, error) {
	res, err := d.client.ListTasks(ctx, &legacy.ListTasksRequest{ContextID: contextID})
	if err != nil {
		return nil, err
	}
	return mappedAll(func(t *legacy.Task) string { return string(t.ID) })(res.Tasks, nil)
}

func legacyPushView(c *legacy.TaskPushConfig) pushView {
	return pushView{id: c.Config.ID, taskID: string(c.TaskID), url: c.Config.URL}
}

func (d *legacyDriver) setPush(ctx context.Context, taskID, configID, url string) (pushView, error) {
	return mapped(legacyPushView)(d.client.SetTaskPushConfig(ctx, &legacy.TaskPushConfig{TaskID: legacy.TaskID(taskID), Config: legacy.PushConfig{ID: configID, URL: url, Token: "tok"}}))
}

func (d *legacyDriver) getPush(ctx context.Context, taskID, configID string) (pushView, error) {
	return mapped(legacyPushView)(d.client.GetTaskPushConfig(ctx, &legacy.GetTaskPushConfigParams{TaskID: legacy.TaskID(taskID), ConfigID: configID}))
}

func (d *legacyDriver) listPush(ctx context.Context, taskID string) ([]pushView, error) {
	return mappedAll(legacyPushView)(d.client.ListTaskPushConfig(ctx, &legacy.ListTaskPushConfigParams{TaskID: legacy.TaskID(taskID)}))
}

func (d *legacyDriver) deletePush(ctx context.Context, taskID, configID string) error {
	return d.client.DeleteTaskPushConfig(ctx, &legacy.DeleteTaskPushConfigParams{TaskID: legacy.TaskID(taskID), ConfigID: configID})
}

func legacyText(parts legacy.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if tp, ok := p.(legacy.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

func legacyView(t *legacy.Task) view {
	v := view{id: string(t.ID), contextID: t.ContextID, state: string(t.Status.State), artifacts: map[string]string{}}
	if t.Status.Message != nil {
		v.statusText = legacyText(t.Status.Message.Parts)
	}
	for _, a := range t.Artifacts {
		v.artifacts[a.Name] = legacyText(a.Parts)
	}
	return v
}

// --- a2a-go v2.3.1: native 1.0, and in 0.3 compatibility mode ---

// v2Driver drives a2a-go v2.3.1's client, whatever protocol it speaks.
type v2Driver struct {
	sentinels
	client *a2aclient.Client
	card   *a2a.AgentCard
	// transport and compat say what the client was opened with.
	transport a2a.TransportProtocol
	compat    bool
}

type compatDriver = v2Driver

var v2Sentinels = sentinels{a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrUnsupportedOperation}

// openNative discovers the agent with the default (1.0) card parser and
// the default transports, as an unmodified 1.0 client does.
func openNative(t *testing.T, url string, withAuth bool, transport a2a.TransportProtocol) driver {
	ctx := context.Background()
	hc := httpClient(withAuth)
	card, err := agentcard.NewResolver(hc).Resolve(ctx, url)
	require.NoError(t, err)
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(hc),
		a2aclient.WithRESTTransport(hc),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{transport}}),
	)
	require.NoError(t, err)
	t.Cleanup(func() { client.Destroy() })
	return &v2Driver{sentinels: v2Sentinels, client: client, card: card, transport: transport}
}

func openCompat(t *testing.T, url string, withAuth bool, transport a2a.TransportProtocol) driver {
	ctx := context.Background()
	hc := httpClient(withAuth)
	resolver := agentcard.NewResolver(hc)
	resolver.CardParser = a2av0.NewAgentCardParser()
	card, err := resolver.Resolve(ctx, url)
	require.NoError(t, err)
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithDefaultsDisabled(),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc}),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{transport}}),
	)
	require.NoError(t, err)
	t.Cleanup(func() { client.Destroy() })
	return &v2Driver{sentinels: v2Sentinels, client: client, card: card, transport: transport, compat: true}
}

func (d *compatDriver) cardName() string { return d.card.Name }

func (d *compatDriver) send(ctx context.Context, text string, cont *view, blocking bool) (view, error) {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	if cont != nil {
		msg.TaskID, msg.ContextID = a2a.TaskID(cont.id), cont.contextID
	}
	return mapped(compatView)(taskResult[*a2a.Task](d.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: !blocking}})))
}

func (d *compatDriver) get(ctx context.Context, id string) (view, error) {
	return mapped(compatView)(d.client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(id)}))
}

func (d *compatDriver) cancel(ctx context.Context, id string) (view, error) {
	return mapped(compatView)(d.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(id)}))
}

func (d *compatDriver) list(ctx context.Context, contextID string) ([]string, error) {
	if d.compat && d.transport == a2a.TransportProtocolJSONRPC {
		return nil, errNoList
	}
	res, err := d.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID})
	if err != nil {
		return nil, err
	}
	return mappedAll(func(t *a2a.Task) string { return string(t.ID) })(res.Tasks, nil)
}

func v2PushView(c *a2a.PushConfig) pushView {
	return pushView{id: c.ID, taskID: string(c.TaskID), url: c.URL}
}

func (d *compatDriver) setPush(ctx context.Context, taskID, configID, url string) (pushView, error) {
	return mapped(v2PushView)(d.client.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: a2a.TaskID(taskID), ID: configID, URL: url, Token: "tok"}))
}

func (d *compatDriver) getPush(ctx context.Context, taskID, configID string) (pushView, error) {
	return mapped(v2PushView)(d.client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: a2a.TaskID(taskID), ID: configID}))
}

func (d *compatDriver) listPush(ctx context.Context, taskID string) ([]pushView, error) {
	return mappedAll(v2PushView)(d.client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: a2a.TaskID(taskID)}))
}

func (d *compatDriver) deletePush(ctx context.Context, taskID, configID string) error {
	return d.client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: a2a.TaskID(taskID), ID: configID})
}

func compatText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func compatView(t *a2a.Task) view {
	state := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(string(t.Status.State), "TASK_STATE_"), "_", "-"))
	v := view{id: string(t.ID), contextID: t.ContextID, state: state, artifacts: map[string]string{}}
	if t.Status.Message != nil {
		v.statusText = compatText(t.Status.Message.Parts)
	}
	for _, a := range t.Artifacts {
		v.artifacts[a.Name] = compatText(a.Parts)
	}
	return v
}
