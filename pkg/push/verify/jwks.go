package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// KeySource finds the public key a notification names in its JWT header.
type KeySource interface {
	// Key returns the key with the given kid. It returns an error wrapping
	// ErrUnknownKey when there is no such key, or ErrKeysUnavailable when
	// the keys cannot be read.
	Key(ctx context.Context, kid string) (keys.PublicKey, error)
}

// staticKeys is a fixed key set.
type staticKeys map[string]keys.PublicKey

// StaticKeys returns a KeySource over a fixed JWKS document, for receivers
// that pin the server's keys instead of fetching them. It fails when the
// document does not parse (see keys.ParseJWKS).
func StaticKeys(jwks []byte) (KeySource, error) {
	pubs, err := keys.ParseJWKS(jwks)
	if err != nil {
		return nil, err
	}
	s := staticKeys{}
	for _, k := range pubs {
		s[k.KID] = k
	}
	return s, nil
}

// Key returns the key or an error wrapping ErrUnknownKey.
func (s staticKeys) Key(_ context.Context, kid string) (keys.PublicKey, error) {
	k, ok := s[kid]
	if !ok {
		return keys.PublicKey{}, fmt.Errorf("%w: %q", ErrUnknownKey, kid)
	}
	return k, nil
}

// JWKS defaults.
const (
	// DefaultJWKSMaxAge is how long fetched keys are used before a refetch.
	DefaultJWKSMaxAge = 10 * time.Minute
	// DefaultMinRefreshInterval is the shortest time between two fetches,
	// so notifications with unknown kids cannot make the receiver hammer
	// the JWKS endpoint.
	DefaultMinRefreshInterval = 30 * time.Second
	// maxJWKSBytes bounds a JWKS response.
	maxJWKSBytes = 256 << 10
)

// JWKSOptions configure a JWKS.
type JWKSOptions struct {
	// Client fetches the document; nil means a client with a 10-second
	// timeout.
	Client *http.Client
	// MaxAge is how long keys are used before a refetch
	// (DefaultJWKSMaxAge).
	MaxAge time.Duration
	// MinRefreshInterval is the shortest time between fetches
	// (DefaultMinRefreshInterval).
	MinRefreshInterval time.Duration
	// Clock tells the time; nil means the system clock.
	Clock clock.Clock
}

// JWKS is a KeySource that fetches the server's JWKS document over HTTP and
// caches it: keys are reused for MaxAge; a kid that is not in the cache
// triggers a refetch (this is how a key rotation reaches the receiver), but
// at most once per MinRefreshInterval; concurrent lookups share one fetch;
// revalidation uses the ETag. When a refetch fails, keys already known are
// still served. It is safe for concurrent use.
type JWKS struct {
	url        string
	client     *http.Client
	maxAge     time.Duration
	minRefresh time.Duration
	clock      clock.Clock

	fetching chan struct{} // a one-slot lock held while fetching

	mu          sync.Mutex
	keys        map[string]keys.PublicKey
	etag        string
	fetchedAt   time.Time // last successful fetch
	attemptedAt time.Time // last fetch attempt
}

// NewJWKS returns a JWKS that fetches url (for example
// https://agent.example.com/.well-known/jwks.json). Nothing is fetched
// before the first lookup.
func NewJWKS(url string, o JWKSOptions) *JWKS {
	j := &JWKS{url: url, client: o.Client, maxAge: o.MaxAge, minRefresh: o.MinRefreshInterval, clock: clock.Or(o.Clock),
		fetching: make(chan struct{}, 1), keys: map[string]keys.PublicKey{}}
	if j.client == nil {
		j.client = &http.Client{Timeout: 10 * time.Second}
	}
	j.maxAge = positive.Or(j.maxAge, DefaultJWKSMaxAge)
	j.minRefresh = positive.Or(j.minRefresh, DefaultMinRefreshInterval)
	return j
}

// Key returns the key with the given kid, fetching the document when the
// cache is stale or lacks the kid (see JWKS). It returns an error wrapping
// ErrUnknownKey when the kid is still unknown, ErrKeysUnavailable when the
// document cannot be fetched and the kid is not cached, or ctx's error.
func (j *JWKS) Key(ctx context.Context, kid string) (keys.PublicKey, error) {
	if k, ok, fresh := j.lookup(kid); ok && fresh {
		return k, nil
	}
	select {
	case j.fetching <- struct{}{}:
	case <-ctx.Done():
		return keys.PublicKey{}, fmt.Errorf("%w: %w", ErrKeysUnavailable, ctx.Err())
	}
	defer func() { <-j.fetching }()

	// Another lookup may have fetched while this one waited.
	k, ok, fresh := j.lookup(kid)
	if ok && fresh {
		return k, nil
	}
	j.mu.Lock()
	recent := !j.attemptedAt.IsZero() && j.clock.Now().Sub(j.attemptedAt) < j.minRefresh
	j.mu.Unlock()
	if recent {
		if ok {
			return k, nil
		}
		return keys.PublicKey{}, fmt.Errorf("%w: %q (JWKS fetched less than %s ago)", ErrUnknownKey, kid, j.minRefresh)
	}
	if err := j.fetch(ctx); err != nil {
		if ok {
			return k, nil // serve the known key while the endpoint is down
		}
		return keys.PublicKey{}, err
	}
	if k, ok, _ = j.lookup(kid); ok {
		return k, nil
	}
	return keys.PublicKey{}, fmt.Errorf("%w: %q", ErrUnknownKey, kid)
}

// lookup reads the cache: the key, whether it is there, and whether the
// cache is fresh.
func (j *JWKS) lookup(kid string) (k keys.PublicKey, ok, fresh bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok = j.keys[kid]
	fresh = !j.fetchedAt.IsZero() && j.clock.Now().Sub(j.fetchedAt) < j.maxAge
	return k, ok, fresh
}

// fetch reads the document and replaces the cache. Errors wrap
// ErrKeysUnavailable.
func (j *JWKS) fetch(ctx context.Context) error {
	j.mu.Lock()
	j.attemptedAt = j.clock.Now()
	etag := j.etag
	j.mu.Unlock()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	switch resp.StatusCode {
	case http.StatusNotModified:
		j.mu.Lock()
		j.fetchedAt = j.clock.Now()
		j.mu.Unlock()
		return nil
	case http.StatusOK:
	default:
		return fmt.Errorf("%w: GET JWKS answered %d", ErrKeysUnavailable, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return fmt.Errorf("%w: read JWKS: %w", ErrKeysUnavailable, err)
	}
	if len(data) > maxJWKSBytes {
		return fmt.Errorf("%w: JWKS larger than %d bytes", ErrKeysUnavailable, maxJWKSBytes)
	}
	pubs, err := keys.ParseJWKS(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	}
	if len(pubs) == 0 {
		return errors.Join(ErrKeysUnavailable, errors.New("JWKS has no usable signing key"))
	}
	m := make(map[string]keys.PublicKey, len(pubs))
	for _, k := range pubs {
		m[k.KID] = k
	}
	j.mu.Lock()
	j.keys, j.etag, j.fetchedAt = m, resp.Header.Get("ETag"), j.clock.Now()
	j.mu.Unlock()
	return nil
}
