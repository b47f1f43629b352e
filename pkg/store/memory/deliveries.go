package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// MaxDeliveries bounds the deliveries the memory store keeps per task: at
// the bound, a new delivery drops the one of the oldest version.
const MaxDeliveries = 500

// deliveryKey names a delivery: one task version to one config.
type deliveryKey struct {
	version  int64
	configID string
}

var _ store.DeliveryLog = (*Store)(nil)

// LogDelivery implements store.DeliveryLog.
func (s *Store) LogDelivery(_ context.Context, taskID string, a store.DeliveryAttempt) error {
	return s.editTask(taskID, func(e *entry, now time.Time) error {
		k := deliveryKey{a.Version, a.ConfigID}
		d := e.deliveries[k]
		if d == nil {
			if e.deliveries == nil {
				e.deliveries = map[deliveryKey]*store.Delivery{}
			}
			if len(e.deliveries) >= MaxDeliveries {
				delete(e.deliveries, slices.MinFunc(slices.Collect(maps.Keys(e.deliveries)), compareKeys))
			}
			d = &store.Delivery{TaskID: taskID, ConfigID: a.ConfigID, Version: a.Version}
			e.deliveries[k] = d
		}
		if len(a.Job) > 0 {
			d.Job = slices.Clone(a.Job)
		}
		a.Job = nil
		d.State, d.DeadLettered, d.NextAttemptAt, d.UpdatedAt = a.State, a.DeadLettered, a.NextAttemptAt, now
		if len(d.Attempts) >= store.MaxDeliveryAttempts {
			d.Attempts = slices.Delete(slices.Clone(d.Attempts), 0, len(d.Attempts)-store.MaxDeliveryAttempts+1)
		}
		d.Attempts = append(d.Attempts, a)
		return nil
	})
}

// ListDeliveries implements store.DeliveryLog. Its cursor is the
// version and config id of the last delivery of the page.
func (s *Store) ListDeliveries(_ context.Context, q store.DeliveryQuery) (store.DeliveryPage, error) {
	var after *deliveryKey
	if q.Cursor != "" {
		v, c, ok := strings.Cut(q.Cursor, "|")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return store.DeliveryPage{}, a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
		}
		after = &deliveryKey{n, c}
	}
	return withTask(s, q.TaskID, func(e *entry, _ time.Time) (store.DeliveryPage, error) {
		keys := slices.SortedFunc(maps.Keys(e.deliveries), func(a, b deliveryKey) int { return compareKeys(b, a) })
		if after != nil {
			i, _ := slices.BinarySearchFunc(keys, *after, func(k, t deliveryKey) int { return compareKeys(t, k) })
			if i < len(keys) && keys[i] == *after {
				i++
			}
			keys = keys[i:]
		}
		var page store.DeliveryPage
		for i, k := range keys {
			if i == q.PageSize {
				last := keys[i-1]
				page.NextCursor = fmt.Sprintf("%d|%s", last.version, last.configID)
				break
			}
			page.Deliveries = append(page.Deliveries, copyDelivery(e.deliveries[k]))
		}
		return page, nil
	})
}

// RedriveDelivery implements store.DeliveryLog.
func (s *Store) RedriveDelivery(_ context.Context, taskID, configID string, version int64) (*store.Delivery, error) {
	return withTask(s, taskID, func(e *entry, now time.Time) (*store.Delivery, error) {
		d := e.deliveries[deliveryKey{version, configID}]
		switch {
		case d == nil:
			return nil, store.ErrNotFound
		case d.State != a2a.DeliveryFailed || len(d.Job) == 0:
			return nil, &store.DeliveryStateError{State: d.State}
		}
		d.State, d.DeadLettered, d.NextAttemptAt, d.UpdatedAt = a2a.DeliveryQueued, false, time.Time{}, now
		d.Redrives++
		c := copyDelivery(d)
		return &c, nil
	})
}

// compareKeys orders deliveries by version, then config id.
func compareKeys(a, b deliveryKey) int {
	return cmp.Or(cmp.Compare(a.version, b.version), cmp.Compare(b.configID, a.configID))
}

func copyDelivery(d *store.Delivery) store.Delivery {
	c := *d
	c.Attempts = slices.Clone(d.Attempts)
	c.Job = slices.Clone(d.Job)
	return c
}
