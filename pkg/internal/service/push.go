package service

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Redacted replaces a push config's token and credentials in what get and
// list return: they are write-only. A set that sends it back is refused, so
// a client that round-trips a config cannot store the marker as a secret.
const Redacted = "[redacted]"

// MaxPushConfigIDLength bounds a client-chosen push config id.
const MaxPushConfigIDLength = 128

// PushConfigChecker vets a webhook registration before it is stored: the
// URL policy (push.CheckConfig with the deployment's egress policy) and the
// secrets' limits. Its error message says what is wrong, without repeating
// a secret; the service returns it to the client as invalid params.
type PushConfigChecker func(a2a.PushNotificationConfig) error

// SetPushConfig implements tasks/pushNotificationConfig/set: it stores the
// config for one of the caller's tasks (replacing the task's config with the
// same id; a config without an id gets the task id as its id, as the
// reference SDKs give it, so setting one again replaces it) and returns it
// with its secrets redacted. protocol is the A2A version of the request:
// the config keeps it, and its notifications are sent in that version's
// shape.
func (s *Service) SetPushConfig(ctx context.Context, owner string, protocol a2a.Version, p a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error) {
	if err := s.pushTask(ctx, owner, p.TaskID, "params.taskId"); err != nil {
		return nil, err
	}
	c, err := s.newPushConfig(p.TaskID, protocol, p.PushNotificationConfig, "params.pushNotificationConfig")
	if err != nil {
		return nil, err
	}
	if err := s.store.PutPushConfig(ctx, c); err != nil {
		return nil, s.pushStoreError(err, p.TaskID, "params.pushNotificationConfig")
	}
	return redact(c), nil
}

// DefaultPushConfigID is the config id the official A2A conformance kit
// asks for when it set a config without an id. Unless a config of that name
// exists, it means the task's default config, as no id does.
const DefaultPushConfigID = "default"

// GetPushConfig implements tasks/pushNotificationConfig/get. Without a
// config id, or with DefaultPushConfigID, it returns the task's default
// config: the one set without an id (whose id is the task id), else the
// task's only config.
func (s *Service) GetPushConfig(ctx context.Context, owner string, p a2a.GetTaskPushNotificationConfigParams) (*a2a.TaskPushNotificationConfig, error) {
	if err := s.pushTask(ctx, owner, p.ID, "params.id"); err != nil {
		return nil, err
	}
	if p.PushNotificationConfigID != "" {
		c, err := s.store.GetPushConfig(ctx, p.ID, p.PushNotificationConfigID)
		switch {
		case err == nil:
			return redact(*c), nil
		case !errors.Is(err, store.ErrNotFound):
			return nil, s.pushStoreError(err, p.ID, "params.pushNotificationConfigId")
		case p.PushNotificationConfigID != DefaultPushConfigID:
			return nil, configNotFound(p.ID, p.PushNotificationConfigID)
		}
	}
	cs, err := s.store.ListPushConfigs(ctx, p.ID)
	if err != nil {
		return nil, s.pushStoreError(err, p.ID, "params")
	}
	for _, c := range cs {
		if c.Config.ID == p.ID {
			return redact(c), nil
		}
	}
	switch len(cs) {
	case 0:
		return nil, configNotFound(p.ID, p.PushNotificationConfigID)
	case 1:
		return redact(cs[0]), nil
	}
	return nil, a2a.InvalidParams("params.pushNotificationConfigId", "names no config and task %s has %d push notification configs, none set without an id; name one (list them with %s)", p.ID, len(cs), a2a.MethodPushConfigList)
}

// ListPushConfigs implements tasks/pushNotificationConfig/list: the task's
// configs by id, secrets redacted.
func (s *Service) ListPushConfigs(ctx context.Context, owner string, p a2a.ListTaskPushNotificationConfigParams) ([]a2a.TaskPushNotificationConfig, error) {
	if err := s.pushTask(ctx, owner, p.ID, "params.id"); err != nil {
		return nil, err
	}
	cs, err := s.store.ListPushConfigs(ctx, p.ID)
	if err != nil {
		return nil, s.pushStoreError(err, p.ID, "params")
	}
	out := make([]a2a.TaskPushNotificationConfig, len(cs))
	for i, c := range cs {
		out[i] = *redact(c)
	}
	return out, nil
}

// DeletePushConfig implements tasks/pushNotificationConfig/delete.
// Deleting a config that does not exist succeeds; the task must exist and
// belong to the caller.
func (s *Service) DeletePushConfig(ctx context.Context, owner string, p a2a.DeleteTaskPushNotificationConfigParams) error {
	if err := s.pushEnabled(); err != nil {
		return err
	}
	if p.ID != "" && p.PushNotificationConfigID == "" {
		return a2a.InvalidParams("params.pushNotificationConfigId", "is required")
	}
	if err := s.pushTask(ctx, owner, p.ID, "params.id"); err != nil {
		return err
	}
	if err := s.store.DeletePushConfig(ctx, p.ID, p.PushNotificationConfigID); err != nil {
		return s.pushStoreError(err, p.ID, "params")
	}
	return nil
}

// pushTask checks that push notifications are on and that taskID names a
// task of owner (field names the task id in errors).
func (s *Service) pushTask(ctx context.Context, owner, taskID, field string) error {
	if err := s.pushEnabled(); err != nil {
		return err
	}
	if taskID == "" {
		return a2a.InvalidParams(field, "is required")
	}
	_, err := s.get(ctx, owner, taskID, store.GetOptions{})
	return err
}

func (s *Service) pushEnabled() error {
	if !s.cfg.PushNotifications {
		return a2a.Errorf(a2a.CodePushNotificationNotSupported, "push notifications are not supported by this agent; poll tasks/get instead")
	}
	return nil
}

// newPushConfig checks a registration and returns it ready to store. A
// config without an id gets the task id (a new task's, unknown yet, is
// filled in by createTask).
func (s *Service) newPushConfig(taskID string, protocol a2a.Version, cfg a2a.PushNotificationConfig, field string) (store.PushConfig, error) {
	if cfg.ID == "" {
		cfg.ID = taskID
	} else if reason := checkConfigID(cfg.ID); reason != "" {
		return store.PushConfig{}, a2a.InvalidParams(field+".id", "%s", reason)
	}
	if cfg.Token == Redacted || (cfg.Authentication != nil && cfg.Authentication.Credentials == Redacted) {
		return store.PushConfig{}, a2a.InvalidParams(field, "carries the %q marker that get and list show instead of a secret; send the real token and credentials", Redacted)
	}
	if s.checkPush != nil {
		if err := s.checkPush(cfg); err != nil {
			return store.PushConfig{}, a2a.InvalidParams(field, "%v", err)
		}
	}
	if protocol == "" {
		protocol = a2a.V03
	}
	return store.PushConfig{TaskID: taskID, Config: cfg, ProtocolVersion: protocol, CreatedAt: s.clock.Now()}, nil
}

// checkConfigID says what is wrong with a client-chosen config id, or "".
func checkConfigID(id string) string {
	if len(id) > MaxPushConfigIDLength {
		return "is longer than 128 bytes"
	}
	if strings.ContainsFunc(id, func(r rune) bool { return r == unicode.ReplacementChar || !unicode.IsPrint(r) || r == '/' }) {
		return "must be printable text without '/'"
	}
	return ""
}

func redact(c store.PushConfig) *a2a.TaskPushNotificationConfig {
	cfg := c.Config
	if cfg.Token != "" {
		cfg.Token = Redacted
	}
	if a := cfg.Authentication; a != nil {
		cp := *a
		if cp.Credentials != "" {
			cp.Credentials = Redacted
		}
		cfg.Authentication = &cp
	}
	return &a2a.TaskPushNotificationConfig{TaskID: c.TaskID, PushNotificationConfig: cfg}
}

// configNotFound is the error of a config that does not exist. A2A has no
// code of its own for it; like a missing task it is TaskNotFound (HTTP
// 404), with a message that names the config.
func configNotFound(taskID, configID string) error {
	if configID == "" {
		return a2a.Errorf(a2a.CodeTaskNotFound, "task %s has no push notification config", taskID)
	}
	return a2a.Errorf(a2a.CodeTaskNotFound, "task %s has no push notification config %q", taskID, configID)
}

// pushStoreError maps push config store errors to the protocol.
func (s *Service) pushStoreError(err error, taskID, field string) error {
	var tm *store.TooManyConfigsError
	if errors.As(err, &tm) {
		return a2a.InvalidParams(field, "task %s already has %d push notification configs, the most it can have; delete one first", taskID, tm.Limit)
	}
	return s.storeError(err, taskID, field)
}
