package memory_test

import (
	"sync"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, o storetest.Options) store.Store {
		return memory.New(memory.Options{Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
	})
}

func TestChanges(t *testing.T) {
	storetest.RunChanges(t, func(t *testing.T, o storetest.Options) (store.Store, func() []store.TaskChange) {
		var (
			mu      sync.Mutex
			changes []store.TaskChange
		)
		s := memory.New(memory.Options{Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL,
			OnChange: func(c store.TaskChange) {
				mu.Lock()
				defer mu.Unlock()
				changes = append(changes, c)
			}})
		return s, func() []store.TaskChange {
			mu.Lock()
			defer mu.Unlock()
			got := changes
			changes = nil
			return got
		}
	})
}

func TestAcrossEpochs(t *testing.T) { clocktest.RunAcrossEpochs(t, ".") }
