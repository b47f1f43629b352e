package memory_test

import (
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, o storetest.Options) service.Store {
		return memory.New(memory.Options{Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
	})
}
