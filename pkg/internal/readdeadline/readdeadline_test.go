package readdeadline

import (
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// never is a resolution at which the watcher's ticker does not fire
// within a test: the tests that drive check themselves use it.
const never = time.Hour

// pair returns a listener wrapped at resolution, the server's end of a
// connection accepted by it, and the client's end.
func pair(t *testing.T, resolution time.Duration) (*Listener, net.Conn, net.Conn) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := Wrap(raw, resolution)
	t.Cleanup(func() { _ = l.Close() })
	client, err := net.Dial("tcp", raw.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	server, err := l.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { _ = server.Close() })
	return l, server, client
}

// readAsync reads one byte from c on a goroutine.
func readAsync(c net.Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	return done
}

// waitErr returns what the read returned, failing if it did not return
// within a generous bound.
func waitErr(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not return")
		return nil
	}
}

// readable writes one byte from the client and checks that the server
// reads it: the server's end holds no deadline that passed.
func readable(t *testing.T, server, client net.Conn) {
	t.Helper()
	done := readAsync(server)
	_, err := client.Write([]byte{'x'})
	require.NoError(t, err)
	assert.NoError(t, waitErr(t, done), "the connection reads")
}

func TestPassedDeadlineEndsThePendingRead(t *testing.T) {
	l, server, client := pair(t, never)
	now := time.Now()
	require.NoError(t, server.SetReadDeadline(now.Add(time.Minute)))
	done := readAsync(server)

	l.check(now.Add(30 * time.Second))
	select {
	case err := <-done:
		t.Fatalf("the read ended before its deadline: %v", err)
	case <-time.After(50 * time.Millisecond):
	}

	l.check(now.Add(2 * time.Minute))
	err := waitErr(t, done)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "the error a deadline gives")
	var ne net.Error
	require.True(t, errors.As(err, &ne))
	assert.True(t, ne.Timeout())

	// A new deadline takes the enforced one back.
	require.NoError(t, server.SetReadDeadline(time.Time{}))
	readable(t, server, client)
}

func TestDeadlineSetAgainBeforeItPasses(t *testing.T) {
	tests := []struct {
		name string
		next func(now time.Time) time.Time
	}{
		{"moved later", func(now time.Time) time.Time { return now.Add(10 * time.Minute) }},
		{"cleared", func(time.Time) time.Time { return time.Time{} }},
		{"beyond what nanoseconds hold", func(time.Time) time.Time { return time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, server, client := pair(t, never)
			now := time.Now()
			require.NoError(t, server.SetReadDeadline(now.Add(time.Minute)))
			require.NoError(t, server.SetReadDeadline(tt.next(now)))
			l.check(now.Add(2 * time.Minute))
			readable(t, server, client)
		})
	}
}

// What net/http does to interrupt a read it no longer wants: a deadline
// in the past, then none.
func TestDeadlineInThePastAppliesAtOnce(t *testing.T) {
	tests := []struct {
		name string
		at   time.Time
	}{
		{"net/http's", time.Unix(1, 0)},
		{"before 1970", time.Date(1066, 10, 14, 0, 0, 0, 0, time.UTC)},
		{"before the watcher last looked", time.Now().Add(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, server, client := pair(t, never)
			done := readAsync(server)
			require.NoError(t, server.SetReadDeadline(tt.at))
			assert.ErrorIs(t, waitErr(t, done), os.ErrDeadlineExceeded, "no watcher needed")
			require.NoError(t, server.SetReadDeadline(time.Time{}))
			readable(t, server, client)
		})
	}
}

// The watcher's own ticker enforces a deadline, at most a resolution late.
func TestWatcherEnforcesDeadlines(t *testing.T) {
	_, server, _ := pair(t, 5*time.Millisecond)
	start := time.Now()
	require.NoError(t, server.SetReadDeadline(start.Add(20*time.Millisecond)))
	err := waitErr(t, readAsync(server))
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond, "not before the deadline")
}

// Closing the listener stops the watcher: the connections still open get
// their deadlines from the real connection, those stored and those set
// later.
func TestClosedListenerHandsDeadlinesOver(t *testing.T) {
	l, server, client := pair(t, never)
	require.NoError(t, server.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	require.NoError(t, l.Close())
	assert.ErrorIs(t, waitErr(t, readAsync(server)), os.ErrDeadlineExceeded, "the stored deadline")

	require.NoError(t, server.SetReadDeadline(time.Time{}))
	readable(t, server, client)

	require.NoError(t, server.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	assert.ErrorIs(t, waitErr(t, readAsync(server)), os.ErrDeadlineExceeded, "a deadline set after")
}

func TestClosedConnectionIsForgotten(t *testing.T) {
	l, server, _ := pair(t, never)
	l.mu.Lock()
	assert.Len(t, l.conns, 1)
	l.mu.Unlock()
	require.NoError(t, server.Close())
	require.ErrorIs(t, server.Close(), net.ErrClosed, "a second close is the real connection's error")
	l.mu.Lock()
	assert.Empty(t, l.conns)
	l.mu.Unlock()
}

func TestSetDeadlineSetsBoth(t *testing.T) {
	_, server, client := pair(t, never)
	require.NoError(t, server.SetDeadline(time.Unix(1, 0)))
	_, err := server.Write([]byte{'x'})
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "the write deadline")
	assert.ErrorIs(t, waitErr(t, readAsync(server)), os.ErrDeadlineExceeded, "the read deadline")
	require.NoError(t, server.SetDeadline(time.Time{}))
	readable(t, server, client)
}

// Deadlines set while the watcher enforces others (run with -race): a
// deadline enforced is one that passed, and the last one set holds.
func TestDeadlinesSetWhileWatched(t *testing.T) {
	l, server, client := pair(t, never)
	now := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 2000 {
			_ = server.SetReadDeadline(now.Add(time.Duration(i%3) * time.Minute))
		}
		_ = server.SetReadDeadline(now.Add(time.Hour))
	})
	wg.Go(func() {
		for range 2000 {
			l.check(now.Add(90 * time.Second))
		}
	})
	wg.Wait()
	readable(t, server, client)
	l.check(now.Add(2 * time.Hour))
	assert.ErrorIs(t, waitErr(t, readAsync(server)), os.ErrDeadlineExceeded)
}

func TestAcceptErrorIsTheListeners(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := Wrap(raw, never)
	require.NoError(t, l.Close())
	_, err = l.Accept()
	assert.ErrorIs(t, err, net.ErrClosed)
	require.ErrorIs(t, l.Close(), net.ErrClosed, "closing twice is the listener's error")
}

// The cost of setting a deadline, as net/http does three times a request
// with read and idle timeouts.
func BenchmarkSetReadDeadline(b *testing.B) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	defer raw.Close()
	client, err := net.Dial("tcp", raw.Addr().String())
	require.NoError(b, err)
	defer client.Close()
	for _, bb := range []struct {
		name string
		ln   func() net.Listener
	}{
		{"runtime timer", func() net.Listener { return raw }},
		{"watched", func() net.Listener { return Wrap(raw, time.Second) }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			go func() { _, _ = net.Dial("tcp", raw.Addr().String()) }()
			c, err := bb.ln().Accept()
			require.NoError(b, err)
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
				_ = c.SetReadDeadline(time.Time{})
			}
		})
	}
}
