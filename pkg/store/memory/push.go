package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// PutPushConfig implements store.PushConfigStore.
func (s *Store) PutPushConfig(_ context.Context, c store.PushConfig) error {
	return s.editTask(c.TaskID, func(e *entry, now time.Time) error {
		if _, replace := e.configs[c.Config.ID]; !replace && len(e.configs) >= store.MaxPushConfigs {
			return &store.TooManyConfigsError{Limit: store.MaxPushConfigs}
		}
		if e.configs == nil {
			e.configs = map[string]store.PushConfig{}
		}
		if c.CreatedAt.IsZero() {
			c.CreatedAt = now
		}
		e.configs[c.Config.ID] = c
		return nil
	})
}

// GetPushConfig implements store.PushConfigStore.
func (s *Store) GetPushConfig(_ context.Context, taskID, configID string) (*store.PushConfig, error) {
	return withTask(s, taskID, func(e *entry, _ time.Time) (*store.PushConfig, error) {
		c, ok := e.configs[configID]
		if !ok {
			return nil, store.ErrNotFound
		}
		return &c, nil
	})
}

// ListPushConfigs implements store.PushConfigStore.
func (s *Store) ListPushConfigs(_ context.Context, taskID string) ([]store.PushConfig, error) {
	return withTask(s, taskID, func(e *entry, _ time.Time) ([]store.PushConfig, error) {
		out := make([]store.PushConfig, 0, len(e.configs))
		for _, c := range e.configs {
			out = append(out, c)
		}
		slices.SortFunc(out, func(a, b store.PushConfig) int { return cmp.Compare(a.Config.ID, b.Config.ID) })
		return out, nil
	})
}

// DeletePushConfig implements store.PushConfigStore.
func (s *Store) DeletePushConfig(_ context.Context, taskID, configID string) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.live(taskID, now); e != nil {
		delete(e.configs, configID)
	}
	return nil
}
