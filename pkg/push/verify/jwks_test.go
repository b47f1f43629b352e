package verify

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// jwksServer serves a key set that a test can swap, and counts requests.
type jwksServer struct {
	mu       sync.Mutex
	set      *keys.Set
	down     bool
	fetches  atomic.Int32
	notModif atomic.Int32
	url      string
}

func newJWKSServer(t *testing.T, set *keys.Set) *jwksServer {
	t.Helper()
	s := &jwksServer{set: set}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		set, down := s.set, s.down
		s.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		if r.Header.Get("If-None-Match") == set.ETag() {
			s.notModif.Add(1)
		}
		set.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/.well-known/jwks.json"
	return s
}

func (s *jwksServer) swap(set *keys.Set, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set, s.down = set, down
}

func TestJWKSCachesAndRevalidates(t *testing.T) {
	set := generate(t, keys.AlgES256)
	srv := newJWKSServer(t, set)
	c := newClock(t)
	j := NewJWKS(srv.url, JWKSOptions{Clock: c, MaxAge: time.Minute, MinRefreshInterval: 10 * time.Second})
	ctx := context.Background()

	for range 3 {
		k, err := j.Key(ctx, set.KeyID())
		require.NoError(t, err)
		assert.Equal(t, keys.AlgES256, k.Alg)
	}
	assert.EqualValues(t, 1, srv.fetches.Load(), "cached")

	c.Advance(2 * time.Minute)
	_, err := j.Key(ctx, set.KeyID())
	require.NoError(t, err)
	assert.EqualValues(t, 2, srv.fetches.Load(), "stale: refetched")
	assert.EqualValues(t, 1, srv.notModif.Load(), "with If-None-Match, answered 304")
	_, err = j.Key(ctx, set.KeyID())
	require.NoError(t, err)
	assert.EqualValues(t, 2, srv.fetches.Load(), "fresh again after the 304")
}

func TestJWKSUnknownKidIsRateLimited(t *testing.T) {
	set := generate(t, keys.AlgES256)
	srv := newJWKSServer(t, set)
	c := newClock(t)
	j := NewJWKS(srv.url, JWKSOptions{Clock: c, MinRefreshInterval: 10 * time.Second})
	ctx := context.Background()

	_, err := j.Key(ctx, "nope")
	assert.ErrorIs(t, err, ErrUnknownKey)
	for range 5 {
		_, err = j.Key(ctx, "nope-again")
		assert.ErrorIs(t, err, ErrUnknownKey)
	}
	assert.EqualValues(t, 1, srv.fetches.Load(), "unknown kids do not hammer the endpoint")
	c.Advance(11 * time.Second)
	_, err = j.Key(ctx, "nope")
	assert.ErrorIs(t, err, ErrUnknownKey)
	assert.EqualValues(t, 2, srv.fetches.Load(), "after the interval one refetch is allowed")
}

// TestJWKSFollowsRotation: after the agent rotates its key, the first
// notification with the new kid makes the receiver refetch and accept it.
func TestJWKSFollowsRotation(t *testing.T) {
	oldSet := generate(t, keys.AlgES256)
	srv := newJWKSServer(t, oldSet)
	c := newClock(t)
	hook := newWebhook(t)
	v := newVerifier(t, Options{Keys: NewJWKS(srv.url, JWKSOptions{Clock: c}), Audience: hook.url, Clock: c})

	n := taskNotification()
	_, err := v.Verify(hook.capture(t, oldSet, c, 0, a2a.PushNotificationConfig{}, n).request())
	require.NoError(t, err)

	// The new key signs; the old one stays published.
	newSet := rotate(t, oldSet)
	srv.swap(newSet, false)
	c.Advance(time.Minute) // past the refresh interval, well within the cache age
	n.TaskVersion++
	_, err = v.Verify(hook.capture(t, newSet, c, 0, a2a.PushNotificationConfig{}, n).request())
	require.NoError(t, err)
	assert.EqualValues(t, 2, srv.fetches.Load())
}

// rotate returns a set whose active key is new and which still publishes
// old's keys.
func rotate(t *testing.T, old *keys.Set) *keys.Set {
	t.Helper()
	_, fresh, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(fresh)
	require.NoError(t, err)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	for _, k := range old.PublicKeys() {
		der, err := x509.MarshalPKIXPublicKey(k.Key)
		require.NoError(t, err)
		pemText += string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	}
	s, err := keys.Parse([]byte(pemText))
	require.NoError(t, err)
	require.Len(t, s.PublicKeys(), 2)
	return s
}

func TestJWKSServesKnownKeysWhenDown(t *testing.T) {
	set := generate(t, keys.AlgES256)
	srv := newJWKSServer(t, set)
	c := newClock(t)
	j := NewJWKS(srv.url, JWKSOptions{Clock: c, MaxAge: time.Minute})
	ctx := context.Background()
	_, err := j.Key(ctx, set.KeyID())
	require.NoError(t, err)

	srv.swap(set, true)
	c.Advance(2 * time.Minute)
	_, err = j.Key(ctx, set.KeyID())
	assert.NoError(t, err, "a known key is served while the endpoint is down")
	c.Advance(time.Minute)
	_, err = j.Key(ctx, "other")
	assert.ErrorIs(t, err, ErrKeysUnavailable)

	empty := NewJWKS(srv.url, JWKSOptions{Clock: c})
	_, err = empty.Key(ctx, set.KeyID())
	assert.ErrorIs(t, err, ErrKeysUnavailable)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = NewJWKS(srv.url, JWKSOptions{}).Key(canceled, set.KeyID())
	assert.ErrorIs(t, err, ErrKeysUnavailable)
}
