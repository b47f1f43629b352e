package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// pushConfig is a config of taskID with secrets, registered now.
func (s *suite) pushConfig(taskID, configID string) store.PushConfig {
	return store.PushConfig{
		TaskID: taskID,
		Config: a2a.PushNotificationConfig{
			ID:    configID,
			URL:   "https://hooks.example.com/" + configID,
			Token: "token-" + configID,
			Authentication: &a2a.PushAuthenticationInfo{
				Schemes: []string{"Bearer"}, Credentials: "secret-" + configID,
			},
		},
		ProtocolVersion: "0.3",
		CreatedAt:       s.clock.Now(),
	}
}

func (s *suite) putConfig(c store.PushConfig) {
	s.t.Helper()
	require.NoError(s.t, s.store.PutPushConfig(s.ctx, c))
}

func (s *suite) configIDs(taskID string) []string {
	s.t.Helper()
	cs, err := s.store.ListPushConfigs(s.ctx, taskID)
	require.NoError(s.t, err)
	ids := []string{}
	for _, c := range cs {
		require.Equal(s.t, taskID, c.TaskID)
		ids = append(ids, c.Config.ID)
	}
	return ids
}

func requireTooManyConfigs(t *testing.T, err error) {
	t.Helper()
	var tm *store.TooManyConfigsError
	require.ErrorAs(t, err, &tm, "want a TooManyConfigsError, got %v", err)
	assert.Equal(t, store.MaxPushConfigs, tm.Limit)
}

func testPushConfigs(t *testing.T, s *suite) {
	s.create("t1")
	a, b := s.pushConfig("t1", "cfg-a"), s.pushConfig("t1", "cfg-b")
	b.ProtocolVersion = "1.0"
	s.putConfig(b)
	s.putConfig(a)

	got, err := s.store.GetPushConfig(s.ctx, "t1", "cfg-a")
	require.NoError(t, err)
	assert.Equal(t, a.Config, got.Config, "the store keeps the secrets; the service redacts them")
	assert.Equal(t, a2a.V03, got.ProtocolVersion)
	assert.True(t, a.CreatedAt.Equal(got.CreatedAt), "created at %v, read %v", a.CreatedAt, got.CreatedAt)

	cs, err := s.store.ListPushConfigs(s.ctx, "t1")
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, []string{"cfg-a", "cfg-b"}, s.configIDs("t1"), "listed by id")
	assert.Equal(t, a2a.V10, cs[1].ProtocolVersion)

	a.Config.URL = "https://other.example.com/hook"
	a.Config.Token = ""
	a.Config.Authentication = nil
	s.putConfig(a)
	got, err = s.store.GetPushConfig(s.ctx, "t1", "cfg-a")
	require.NoError(t, err)
	assert.Equal(t, a.Config, got.Config, "a put replaces the config with the same id")
	assert.Equal(t, []string{"cfg-a", "cfg-b"}, s.configIDs("t1"))

	require.NoError(t, s.store.DeletePushConfig(s.ctx, "t1", "cfg-a"))
	_, err = s.store.GetPushConfig(s.ctx, "t1", "cfg-a")
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.Equal(t, []string{"cfg-b"}, s.configIDs("t1"))
	require.NoError(t, s.store.DeletePushConfig(s.ctx, "t1", "cfg-a"), "deleting twice is not an error")
	require.NoError(t, s.store.DeletePushConfig(s.ctx, "unknown", "cfg-a"), "nor is deleting a config of an unknown task")

	_, err = s.store.GetPushConfig(s.ctx, "t1", "cfg-zz")
	assert.ErrorIs(t, err, store.ErrNotFound)
	s.create("t2")
	assert.Equal(t, []string{}, s.configIDs("t2"), "a task without configs lists none")
	_, err = s.store.GetPushConfig(s.ctx, "t2", "cfg-b")
	assert.ErrorIs(t, err, store.ErrNotFound, "configs belong to their task")
}

func testPushConfigsOfUnknownTask(t *testing.T, s *suite) {
	err := s.store.PutPushConfig(s.ctx, s.pushConfig("nope", "cfg"))
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.store.GetPushConfig(s.ctx, "nope", "cfg")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.store.ListPushConfigs(s.ctx, "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testPushConfigLimit(t *testing.T, s *suite) {
	s.create("t1")
	for i := range store.MaxPushConfigs {
		s.putConfig(s.pushConfig("t1", id("cfg", i)))
	}
	requireTooManyConfigs(t, s.store.PutPushConfig(s.ctx, s.pushConfig("t1", "one-too-many")))
	assert.Len(t, s.configIDs("t1"), store.MaxPushConfigs, "the refused config was not stored")

	s.putConfig(s.pushConfig("t1", id("cfg", 3))) // replacing one needs no room
	require.NoError(t, s.store.DeletePushConfig(s.ctx, "t1", id("cfg", 0)))
	s.putConfig(s.pushConfig("t1", "now-it-fits"))
	assert.Len(t, s.configIDs("t1"), store.MaxPushConfigs)
}

func testPushConfigsWithNewTask(t *testing.T, s *suite) {
	nt := s.newTask("alice", "t1", "c1", "m1")
	nt.PushConfigs = []store.PushConfig{s.pushConfig("t1", "inline")}
	require.NoError(t, s.store.CreateTask(s.ctx, nt))
	got, err := s.store.GetPushConfig(s.ctx, "t1", "inline")
	require.NoError(t, err)
	assert.Equal(t, nt.PushConfigs[0].Config, got.Config)
	assert.Equal(t, []string{"inline"}, s.configIDs("t1"))

	tooMany := s.newTask("alice", "t2", "c1", "m2")
	for i := range store.MaxPushConfigs + 1 {
		tooMany.PushConfigs = append(tooMany.PushConfigs, s.pushConfig("t2", id("cfg", i)))
	}
	requireTooManyConfigs(t, s.store.CreateTask(s.ctx, tooMany))
	_, err = s.store.GetTask(s.ctx, "t2", store.GetOptions{})
	assert.ErrorIs(t, err, store.ErrNotFound, "a refused task is not created")
}

func testPushConfigsLiveWithTheirTask(t *testing.T, s *suite) {
	s.create("t1")
	s.putConfig(s.pushConfig("t1", "cfg"))
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	s.clock.Advance(TaskTTL - time.Second)
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCompleted, nil)})
	s.putConfig(s.pushConfig("t1", "after-the-end")) // a finished task still takes configs
	assert.Equal(t, []string{"after-the-end", "cfg"}, s.configIDs("t1"))

	s.clock.Advance(TaskTTL - time.Second)
	assert.Equal(t, []string{"after-the-end", "cfg"}, s.configIDs("t1"), "configs live as long as their task")

	s.clock.Advance(time.Second)
	_, err := s.store.GetPushConfig(s.ctx, "t1", "cfg")
	assert.ErrorIs(t, err, store.ErrNotFound, "configs expire with their task")
	_, err = s.store.ListPushConfigs(s.ctx, "t1")
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, s.store.PutPushConfig(s.ctx, s.pushConfig("t1", "late")), store.ErrNotFound)
}
