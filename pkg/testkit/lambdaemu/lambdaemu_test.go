package lambdaemu

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An Invoke that waits for a function that is gone returns once the
// emulator is closed, whatever its context: a fake Lambda API forwarding
// to the function would otherwise hold its server's Close for good.
func TestCloseEndsAWaitingInvoke(t *testing.T) {
	e := New(Options{})
	done := make(chan error, 1)
	go func() {
		_, err := e.Invoke(context.Background(), []byte(`{}`))
		done <- err
	}()
	e.Close()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Invoke still waits after Close")
	}
}
