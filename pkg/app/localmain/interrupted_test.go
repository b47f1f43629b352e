package localmain

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The context ends at the first signal once the signals are caught, and
// at stop without one.
func TestInterrupted(t *testing.T) {
	ctx, stop, registered := interrupted(context.Background(), syscall.SIGUSR1)
	defer stop()
	select {
	case <-registered:
	case <-time.After(10 * time.Second):
		t.Fatal("the signal was never asked for")
	}
	assert.NoError(t, ctx.Err())
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGUSR1))
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the signal did not end the context")
	}

	ctx, stop, _ = interrupted(context.Background(), syscall.SIGUSR1)
	assert.NoError(t, ctx.Err())
	stop()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}
