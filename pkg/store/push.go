package store

import (
	"context"
	"fmt"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// MaxPushConfigs is how many push notification configs one task may have.
const MaxPushConfigs = 10

// PushConfig is a push notification config registered for a task.
type PushConfig struct {
	TaskID string
	// Config is the registration as the client sent it, secrets included
	// (the service redacts them on the way out); Config.ID is set.
	Config a2a.PushNotificationConfig
	// ProtocolVersion is the A2A version the config was registered under
	// ("0.3" or "1.0"): it chooses the notifications' body.
	ProtocolVersion a2a.Version
	CreatedAt       time.Time
}

// TooManyConfigsError is returned when a task already has MaxPushConfigs
// configs and another is added.
type TooManyConfigsError struct{ Limit int }

func (e *TooManyConfigsError) Error() string {
	return fmt.Sprintf("a task can have at most %d push notification configs", e.Limit)
}

// PushConfigStore keeps push notification configs with their tasks.
// Implementations must pass the push part of storetest.Run.
type PushConfigStore interface {
	// PutPushConfig stores c, replacing the task's config with the same id.
	// It returns ErrNotFound for an unknown or expired task, and a
	// *TooManyConfigsError when it would give the task more than
	// MaxPushConfigs configs. Configs live as long as their task.
	PutPushConfig(ctx context.Context, c PushConfig) error
	// GetPushConfig returns one config, or ErrNotFound.
	GetPushConfig(ctx context.Context, taskID, configID string) (*PushConfig, error)
	// ListPushConfigs returns the task's configs, by id (ErrNotFound for an
	// unknown or expired task).
	ListPushConfigs(ctx context.Context, taskID string) ([]PushConfig, error)
	// DeletePushConfig removes a config; deleting one that does not exist
	// is not an error.
	DeletePushConfig(ctx context.Context, taskID, configID string) error
}

// TaskChange is a committed change of a task that push notifications tell
// webhooks about: a new status, or artifacts whose last chunk was stored.
// Stores report it (the memory store through a callback, the DynamoDB store
// through its table's stream).
type TaskChange struct {
	// Task is the task at Version: id, context id, status and metadata; no
	// history and no artifacts.
	Task    a2a.Task
	Version int64
	// StatusChanged is true when the status changed as StatusNotable says.
	StatusChanged bool
	// ArtifactIDs are the artifacts whose last chunk this change stored.
	ArtifactIDs []string
	// PushConfigIDs are the task's configs when the change was made.
	PushConfigIDs []string
	// SessionID is the task's agent session (TaskRecord.SessionID).
	SessionID string
}

// Notable reports whether webhooks are told about the change.
func (c *TaskChange) Notable() bool { return c.StatusChanged || len(c.ArtifactIDs) > 0 }

// StatusNotable reports whether writing status over a task in state from
// is a status change webhooks are told about: a new state, or a status
// message (an agent's progress). A step that starts, rewriting working
// without a message, is not.
func StatusNotable(from a2a.TaskState, status *a2a.TaskStatus) bool {
	return status != nil && (status.State != from || status.Message != nil)
}
