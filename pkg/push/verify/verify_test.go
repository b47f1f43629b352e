package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

const agentURL = "https://agent.example.com"

// newClock returns the tests' clock, stopped at the suite's start as a
// JWT reads it back: whole seconds, in the local zone.
func newClock(tb testing.TB) *clocktest.Clock {
	return clocktest.New(time.Unix(clocktest.Start(tb).Unix(), 0))
}

// sent is a notification as a webhook received it.
type sent struct {
	url    string
	header http.Header
	body   []byte
}

// request rebuilds the received request, so a test can verify it (again,
// or altered).
func (s sent) request() *http.Request {
	r := httptest.NewRequest(http.MethodPost, s.url, bytes.NewReader(s.body))
	r.Header = s.header.Clone()
	return r
}

// webhook is a test webhook that keeps what it last received.
type webhook struct {
	url  string
	mu   sync.Mutex
	last sent
}

func newWebhook(t *testing.T) *webhook {
	t.Helper()
	w := &webhook{}
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.last = sent{url: w.url, header: r.Header.Clone(), body: body}
		w.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	w.url = srv.URL + "/hooks/a2a"
	return w
}

// capture delivers n with a real push.Deliverer (signed by set at the
// clock's time, JWT lifetime ttl or the default) and returns what the
// webhook received.
func (w *webhook) capture(t *testing.T, set *keys.Set, c *clocktest.Clock, ttl time.Duration, cfg a2a.PushNotificationConfig, n push.Notification) sent {
	t.Helper()
	cfg.URL = w.url
	n.Config = cfg
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: set, Issuer: agentURL, Policy: egress.Policy{AllowInsecure: true}, Clock: c, TokenTTL: ttl})
	require.NoError(t, err)
	res := d.Deliver(context.Background(), n)
	require.Equal(t, push.Delivered, res.Outcome, res.Err)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// capture sends n to a new test webhook.
func capture(t *testing.T, set *keys.Set, c *clocktest.Clock, ttl time.Duration, cfg a2a.PushNotificationConfig, n push.Notification) sent {
	t.Helper()
	return newWebhook(t).capture(t, set, c, ttl, cfg, n)
}

func generate(t *testing.T, alg string) *keys.Set {
	t.Helper()
	s, err := keys.Generate(alg)
	require.NoError(t, err)
	return s
}

func static(t *testing.T, jwks []byte) KeySource {
	t.Helper()
	ks, err := StaticKeys(jwks)
	require.NoError(t, err)
	return ks
}

func newVerifier(t *testing.T, o Options) *Verifier {
	t.Helper()
	v, err := New(o)
	require.NoError(t, err)
	return v
}

func taskNotification() push.Notification {
	return push.Notification{TaskID: "task-1", TaskVersion: 4, Body: []byte(`{"kind":"task","id":"task-1","status":{"state":"completed"}}`)}
}

func TestVerifyAcceptsOurNotifications(t *testing.T) {
	for _, alg := range []string{keys.AlgES256, keys.AlgEdDSA} {
		for _, auth := range []*a2a.PushAuthenticationInfo{
			nil,
			{Schemes: []string{"Bearer"}},
			{Schemes: []string{"Bearer"}, Credentials: "their-own-token"},
		} {
			set := generate(t, alg)
			c := newClock(t)
			s := capture(t, set, c, 0, a2a.PushNotificationConfig{Token: "tok-1", Authentication: auth}, taskNotification())
			v := newVerifier(t, Options{Keys: static(t, set.JWKS()), Audience: s.url, Issuer: agentURL, Token: "tok-1", Clock: c})
			r := s.request()
			n, err := v.Verify(r)
			require.NoError(t, err)
			assert.Equal(t, &Notification{
				EventID: "task-1:4", TaskID: "task-1", TaskVersion: 4, Issuer: agentURL, KeyID: set.KeyID(),
				IssuedAt: c.Now(), ContentType: "application/json", Body: s.body,
			}, n)
			again, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			assert.Equal(t, s.body, again, "the body stays readable")
		}
	}
}

// TestVerifyRejects: every way a notification can be wrong is refused with
// its own error.
func TestVerifyRejects(t *testing.T) {
	set := generate(t, keys.AlgES256)
	other := generate(t, keys.AlgES256)
	otherEd := generate(t, keys.AlgEdDSA)
	c := newClock(t)
	hook := newWebhook(t)
	good := hook.capture(t, set, c, 0, a2a.PushNotificationConfig{Token: "tok-1"}, taskNotification())
	longLived := hook.capture(t, set, c, time.Hour, a2a.PushNotificationConfig{Token: "tok-1"}, taskNotification())
	sig := good.header.Get(push.HeaderSignature)
	parts := strings.Split(sig, ".")

	// A JWKS that gives our kid another key of the same type, and one of
	// another type (alg confusion).
	impostor := bytes.ReplaceAll(other.JWKS(), []byte(other.KeyID()), []byte(set.KeyID()))
	wrongType := bytes.ReplaceAll(otherEd.JWKS(), []byte(otherEd.KeyID()), []byte(set.KeyID()))
	// An HS256 token keyed with the public JWKS bytes.
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"aud": good.url, "exp": c.Now().Add(time.Minute).Unix()})
	hs.Header["kid"] = set.KeyID()
	hsSigned, err := hs.SignedString(set.JWKS())
	require.NoError(t, err)

	base := func() Options {
		return Options{Keys: static(t, set.JWKS()), Audience: good.url, Issuer: agentURL, Token: "tok-1", Clock: c}
	}
	tests := []struct {
		name   string
		opts   func(o *Options)
		sent   sent
		change func(r *http.Request)
		want   error
	}{
		{"tampered body", nil, good, func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(`{"kind":"task","id":"task-1","status":{"state":"failed"}}`))
		}, ErrBodyHash},
		{"wrong audience", func(o *Options) { o.Audience = "https://hooks.example.com/other" }, good, nil, ErrAudience},
		{"expired", func(o *Options) { o.Clock = clocktest.New(c.Now().Add(6 * time.Minute)) }, good, nil, ErrExpired},
		{"issued in the future", func(o *Options) { o.Clock = clocktest.New(c.Now().Add(-2 * time.Minute)) }, good, nil, ErrNotYetValid},
		{"too old though not expired", func(o *Options) { o.Clock = clocktest.New(c.Now().Add(10 * time.Minute)) }, longLived, nil, ErrTooOld},
		{"wrong issuer", func(o *Options) { o.Issuer = "https://evil.example.com" }, good, nil, ErrIssuer},
		{"no signature", nil, good, func(r *http.Request) { r.Header.Del(push.HeaderSignature) }, ErrNoSignature},
		{"garbage signature", nil, good, func(r *http.Request) { r.Header.Set(push.HeaderSignature, "not.a.jwt") }, ErrMalformed},
		{"altered claims", nil, good, func(r *http.Request) {
			claims := base64.RawURLEncoding.EncodeToString([]byte(`{"taskId":"task-2"}`))
			r.Header.Set(push.HeaderSignature, parts[0]+"."+claims+"."+parts[2])
		}, ErrSignature},
		{"altered signature", nil, good, func(r *http.Request) {
			r.Header.Set(push.HeaderSignature, parts[0]+"."+parts[1]+"."+base64.RawURLEncoding.EncodeToString(make([]byte, 64)))
		}, ErrSignature},
		{"signed by another key", func(o *Options) { o.Keys = static(t, impostor) }, good, nil, ErrSignature},
		{"key of another type", func(o *Options) { o.Keys = static(t, wrongType) }, good, nil, ErrSignature},
		{"HS256 keyed with the public keys", nil, good, func(r *http.Request) { r.Header.Set(push.HeaderSignature, hsSigned) }, ErrSignature},
		{"unknown kid", func(o *Options) { o.Keys = static(t, other.JWKS()) }, good, nil, ErrUnknownKey},
		{"wrong token", nil, good, func(r *http.Request) { r.Header.Set(push.HeaderNotificationToken, "tok-2") }, ErrToken},
		{"missing token", nil, good, func(r *http.Request) { r.Header.Del(push.HeaderNotificationToken) }, ErrToken},
		{"event id header changed", nil, good, func(r *http.Request) { r.Header.Set(push.HeaderWebhookID, "task-1:5") }, ErrHeaderMismatch},
		{"version header changed", nil, good, func(r *http.Request) { r.Header.Set(push.HeaderTaskVersion, "5") }, ErrHeaderMismatch},
		{"body too large", func(o *Options) { o.MaxBodyBytes = 10 }, good, nil, ErrBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			if tt.opts != nil {
				tt.opts(&o)
			}
			r := tt.sent.request()
			if tt.change != nil {
				tt.change(r)
			}
			n, err := newVerifier(t, o).Verify(r)
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, n)
			assert.NotContains(t, err.Error(), "tok-1", "errors never echo the token")
		})
	}
}

func TestVerifyRejectsReplayedEventID(t *testing.T) {
	set := generate(t, keys.AlgES256)
	c := newClock(t)
	hook := newWebhook(t)
	first := hook.capture(t, set, c, 0, a2a.PushNotificationConfig{}, taskNotification())
	c.Advance(time.Minute)
	// Our own retry: a new signature, the same event id.
	retry := hook.capture(t, set, c, 0, a2a.PushNotificationConfig{}, taskNotification())
	require.NotEqual(t, first.header.Get(push.HeaderSignature), retry.header.Get(push.HeaderSignature))
	v := newVerifier(t, Options{Keys: static(t, set.JWKS()), Audience: first.url, Clock: c})

	_, err := v.Verify(first.request())
	require.NoError(t, err)
	_, err = v.Verify(first.request())
	assert.ErrorIs(t, err, ErrReplayed, "the same request again")
	_, err = v.Verify(retry.request())
	assert.ErrorIs(t, err, ErrReplayed, "a re-signed delivery of the same event")

	next := taskNotification()
	next.TaskVersion = 5
	_, err = v.Verify(hook.capture(t, set, c, 0, a2a.PushNotificationConfig{}, next).request())
	assert.NoError(t, err, "the task's next version is a new event")

	// After the dedupe window the id is forgotten; by then the original
	// signature has long expired, so a replay still fails.
	c.Advance(DefaultDedupeWindow + time.Minute)
	_, err = v.Verify(first.request())
	assert.ErrorIs(t, err, ErrExpired)
}

func TestEventCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := newEventCache(2)
	st, err := c.reserve("a", now.Add(time.Minute), now)
	require.NoError(t, err)
	assert.Equal(t, eventNew, st)
	st, _ = c.reserve("a", now.Add(time.Minute), now)
	assert.Equal(t, eventInFlight, st, "reserved, not yet committed")
	c.commit("a")
	st, _ = c.reserve("a", now.Add(time.Minute), now)
	assert.Equal(t, eventDone, st)

	st, err = c.reserve("b", now.Add(2*time.Minute), now)
	require.NoError(t, err)
	assert.Equal(t, eventNew, st)
	_, err = c.reserve("c", now.Add(time.Minute), now)
	assert.ErrorIs(t, err, ErrBusy, "full of unexpired ids: refuse rather than forget one")

	c.release("b")
	st, err = c.reserve("c", now.Add(3*time.Minute), now)
	require.NoError(t, err, "a released id frees its place")
	assert.Equal(t, eventNew, st)
	c.release("a")
	st, _ = c.reserve("a", now.Add(time.Minute), now)
	assert.Equal(t, eventDone, st, "release does not forget a committed id")

	later := now.Add(time.Minute)
	st, err = c.reserve("d", later.Add(time.Minute), later)
	require.NoError(t, err, "a expired at its time and made room")
	assert.Equal(t, eventNew, st)
	st, _ = c.reserve("c", later, later)
	assert.Equal(t, eventInFlight, st, "c is still remembered")
	assert.Len(t, c.byID, 2)
	assert.Len(t, c.expiry, 2)
}

func TestNewRequiresKeysAndAudience(t *testing.T) {
	_, err := New(Options{Audience: "https://h"})
	assert.Error(t, err)
	_, err = New(Options{Keys: staticKeys{}})
	assert.Error(t, err)
}
