package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// pushFixture is a fixture whose service takes push configs, checked by a
// policy that wants https URLs.
func pushFixture(t *testing.T, step func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error)) *fixture {
	f := newFixture(t, step)
	check := func(c a2a.PushNotificationConfig) error {
		if !strings.HasPrefix(c.URL, "https://") {
			return errors.New("webhook URL refused: scheme must be https")
		}
		return nil
	}
	f.svc = service.New(f.store, f.runner, f.agent.info, service.Config{BlockingTimeout: 5 * time.Second, PushNotifications: true},
		service.Options{Clock: f.clock, CheckPushConfig: check})
	return f
}

func hook(id string) a2a.PushNotificationConfig {
	return a2a.PushNotificationConfig{
		ID: id, URL: "https://hooks.example.com/" + id, Token: "tok-" + id,
		Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "cred-" + id},
	}
}

// redacted is hook(id) as get and list show it.
func redacted(taskID, id string) a2a.TaskPushNotificationConfig {
	c := hook(id)
	c.Token = service.Redacted
	c.Authentication.Credentials = service.Redacted
	return a2a.TaskPushNotificationConfig{TaskID: taskID, PushNotificationConfig: c}
}

func TestPushConfigs(t *testing.T) {
	f := pushFixture(t, askThenAnswer)
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))

	got, err := f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: hook("first")})
	require.NoError(t, err)
	assert.Equal(t, redacted(task.ID, "first"), *got, "set answers with the secrets redacted")
	stored, err := f.store.GetPushConfig(ctx, task.ID, "first")
	require.NoError(t, err)
	assert.Equal(t, hook("first"), stored.Config, "the secrets are stored for delivery")
	assert.Equal(t, a2a.V03, stored.ProtocolVersion)

	got, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, redacted(task.ID, "first"), *got, "without an id, get returns the only config")

	_, err = f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: hook("second")})
	require.NoError(t, err)
	_, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID})
	requireCode(t, err, a2a.CodeInvalidParams, "pushNotificationConfigId: names no config and task "+task.ID+" has 2 push notification configs")
	require.NoError(t, f.svc.DeletePushConfig(ctx, "alice", a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "second"}))

	// A config set without an id gets the task id, as the reference SDKs
	// give it; get without an id, or with "default" (what the conformance
	// kit sends), returns it.
	noID := hook("")
	noID.Token, noID.Authentication = "", nil
	got, err = f.svc.SetPushConfig(ctx, "alice", a2a.V10, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: noID})
	require.NoError(t, err)
	generated := got.PushNotificationConfig.ID
	assert.Equal(t, task.ID, generated, "a config without an id gets the task id")
	assert.Empty(t, got.PushNotificationConfig.Token, "an absent secret is not shown as redacted")
	stored, err = f.store.GetPushConfig(ctx, task.ID, generated)
	require.NoError(t, err)
	assert.Equal(t, a2a.V10, stored.ProtocolVersion)
	for _, id := range []string{"", service.DefaultPushConfigID, task.ID} {
		got, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: id})
		require.NoError(t, err, id)
		assert.Equal(t, task.ID, got.PushNotificationConfig.ID, "get %q returns the config set without an id", id)
		assert.Equal(t, noID.URL, got.PushNotificationConfig.URL)
	}
	// Setting one again without an id replaces it.
	again := noID
	again.URL = "https://hooks.example.com/again"
	_, err = f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: again})
	require.NoError(t, err)
	got, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: service.DefaultPushConfigID})
	require.NoError(t, err)
	assert.Equal(t, again.URL, got.PushNotificationConfig.URL)
	_, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "other"})
	requireCode(t, err, a2a.CodeTaskNotFound, `has no push notification config "other"`)

	got, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "first"})
	require.NoError(t, err)
	assert.Equal(t, redacted(task.ID, "first"), *got)

	list, err := f.svc.ListPushConfigs(ctx, "alice", a2a.ListTaskPushNotificationConfigParams{ID: task.ID})
	require.NoError(t, err)
	require.Len(t, list, 2)
	for _, c := range list {
		assert.NotContains(t, fmt.Sprint(c), "tok-", "list never shows a token")
		assert.NotContains(t, fmt.Sprint(c), "cred-", "nor credentials")
	}

	require.NoError(t, f.svc.DeletePushConfig(ctx, "alice", a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "first"}))
	require.NoError(t, f.svc.DeletePushConfig(ctx, "alice", a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "first"}), "delete is idempotent")
	_, err = f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "first"})
	requireCode(t, err, a2a.CodeTaskNotFound, `task `+task.ID+` has no push notification config "first"`)
	list, err = f.svc.ListPushConfigs(ctx, "alice", a2a.ListTaskPushNotificationConfigParams{ID: task.ID})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, generated, list[0].PushNotificationConfig.ID)
}

func TestPushConfigRefusals(t *testing.T) {
	f := pushFixture(t, askThenAnswer)
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	set := func(owner string, c a2a.PushNotificationConfig) error {
		_, err := f.svc.SetPushConfig(ctx, owner, a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: c})
		return err
	}
	withURL := func(u string) a2a.PushNotificationConfig { c := hook("x"); c.URL = u; return c }
	withID := func(id string) a2a.PushNotificationConfig { c := hook(""); c.ID = id; return c }
	roundTripped := hook("x")
	roundTripped.Token = service.Redacted

	for _, tc := range []struct {
		name   string
		err    error
		code   a2a.Code
		detail string
	}{
		{"refused by the URL policy", set("alice", withURL("http://hooks.example.com/x")), a2a.CodeInvalidParams, "params.pushNotificationConfig: webhook URL refused: scheme must be https"},
		{"an id that is too long", set("alice", withID(strings.Repeat("x", 129))), a2a.CodeInvalidParams, "params.pushNotificationConfig.id: is longer than 128 bytes"},
		{"an id with a slash", set("alice", withID("a/b")), a2a.CodeInvalidParams, "must be printable text without '/'"},
		{"an id with a control character", set("alice", withID("a\x00b")), a2a.CodeInvalidParams, "must be printable text"},
		{"a redacted secret sent back", set("alice", roundTripped), a2a.CodeInvalidParams, "send the real token"},
		{"another owner's task", set("bob", hook("x")), a2a.CodeTaskNotFound, task.ID},
		{"no task id", func() error {
			_, err := f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{PushNotificationConfig: hook("x")})
			return err
		}(), a2a.CodeInvalidParams, "params.taskId: is required"},
		{"get of another owner's task", func() error {
			_, err := f.svc.GetPushConfig(ctx, "bob", a2a.GetTaskPushNotificationConfigParams{ID: task.ID})
			return err
		}(), a2a.CodeTaskNotFound, task.ID},
		{"list of another owner's task", func() error {
			_, err := f.svc.ListPushConfigs(ctx, "bob", a2a.ListTaskPushNotificationConfigParams{ID: task.ID})
			return err
		}(), a2a.CodeTaskNotFound, task.ID},
		{"delete on another owner's task", f.svc.DeletePushConfig(ctx, "bob", a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "x"}), a2a.CodeTaskNotFound, task.ID},
		{"delete without a config id", f.svc.DeletePushConfig(ctx, "alice", a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID}), a2a.CodeInvalidParams, "params.pushNotificationConfigId: is required"},
		{"get of a task without configs", func() error {
			_, err := f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID})
			return err
		}(), a2a.CodeTaskNotFound, "has no push notification config"},
		{"inline config refused by the policy", func() error {
			p := send(userMsg("m2", "hi"), false)
			p.Configuration.PushNotificationConfig = &a2a.PushNotificationConfig{URL: "ftp://x"}
			_, err := f.svc.SendMessage(ctx, "alice", p)
			return err
		}(), a2a.CodeInvalidParams, "params.configuration.pushNotificationConfig: webhook URL refused"},
	} {
		t.Run(tc.name, func(t *testing.T) { requireCode(t, tc.err, tc.code, tc.detail) })
	}

	list, err := f.svc.ListPushConfigs(ctx, "alice", a2a.ListTaskPushNotificationConfigParams{ID: task.ID})
	require.NoError(t, err)
	assert.Empty(t, list, "nothing refused was stored")
	page, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{})
	require.NoError(t, err)
	assert.Len(t, page.Tasks, 1, "a send refused for its push config creates no task")
}

func TestPushConfigLimit(t *testing.T) {
	f := pushFixture(t, askThenAnswer)
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	for i := range store.MaxPushConfigs {
		_, err := f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: hook(fmt.Sprint(i))})
		require.NoError(t, err)
	}
	_, err := f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: hook("11th")})
	requireCode(t, err, a2a.CodeInvalidParams, "already has 10 push notification configs, the most it can have; delete one first")
}

func TestInlinePushConfigs(t *testing.T) {
	f := pushFixture(t, askThenAnswer)
	ctx := context.Background()
	p := send(userMsg("m1", "hi"), true)
	p.Configuration.PushNotificationConfig = &a2a.PushNotificationConfig{URL: "https://hooks.example.com/first"}
	p.Protocol = a2a.V10
	task := sent(t, f.svc, "alice", p)
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	cs, err := f.store.ListPushConfigs(ctx, task.ID)
	require.NoError(t, err)
	require.Len(t, cs, 1, "the inline config was stored with the task")
	assert.Equal(t, "https://hooks.example.com/first", cs[0].Config.URL)
	assert.Equal(t, a2a.V10, cs[0].ProtocolVersion, "it remembers the version it was registered under")

	reply := userMsg("m2", "blue")
	reply.TaskID = task.ID
	p = send(reply, true)
	p.Configuration.PushNotificationConfig = &a2a.PushNotificationConfig{ID: "second", URL: "https://hooks.example.com/second"}
	task = sent(t, f.svc, "alice", p)
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	cs, err = f.store.ListPushConfigs(ctx, task.ID)
	require.NoError(t, err)
	require.Len(t, cs, 2, "a continuing message adds its inline config")
	assert.Equal(t, a2a.V03, cs[1].ProtocolVersion, "a request without a version is 0.3")
}

func TestPushConfigsNeedTheCapability(t *testing.T) {
	f := newFixture(t, askThenAnswer) // push notifications off
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	p := send(userMsg("m2", "hi"), true)
	p.Configuration.PushNotificationConfig = &a2a.PushNotificationConfig{URL: "https://hooks.example.com/x"}
	_, sendErr := f.svc.SendMessage(ctx, "alice", p)
	_, setErr := f.svc.SetPushConfig(ctx, "alice", a2a.V03, a2a.TaskPushNotificationConfig{TaskID: task.ID, PushNotificationConfig: hook("x")})
	_, getErr := f.svc.GetPushConfig(ctx, "alice", a2a.GetTaskPushNotificationConfigParams{ID: task.ID})
	_, listErr := f.svc.ListPushConfigs(ctx, "alice", a2a.ListTaskPushNotificationConfigParams{ID: task.ID})
	delErr := f.svc.DeletePushConfig(ctx, "alice", a2a.DeleteTaskPushNotificationConfigParams{ID: task.ID, PushNotificationConfigID: "x"})
	for _, err := range []error{sendErr, setErr, getErr, listErr, delErr} {
		requireCode(t, err, a2a.CodePushNotificationNotSupported, "push notifications are not supported by this agent")
	}
}
