package push

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

const issuer = "https://agent.example.com"

// fixedNow is the time of the deliverer's clock in these tests.
func fixedNow() time.Time { return time.Unix(1_800_000_000, 0) }

// captured is one request a test webhook received.
type captured struct {
	header http.Header
	body   []byte
	path   string
}

// recorder is a test webhook that records requests and answers with the
// status its respond function picks.
type recorder struct {
	mu       sync.Mutex
	requests []captured
	respond  func(w http.ResponseWriter, n int)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.requests = append(rec.requests, captured{header: r.Header.Clone(), body: body, path: r.URL.RequestURI()})
	n := len(rec.requests)
	rec.mu.Unlock()
	if rec.respond != nil {
		rec.respond(w, n)
	}
}

func (rec *recorder) all() []captured {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]captured(nil), rec.requests...)
}

func newDeliverer(t testing.TB, set *keys.Set, o DelivererOptions) *Deliverer {
	t.Helper()
	o.Signer, o.Issuer = set, issuer
	if o.Clock == nil {
		o.Clock = clocktest.New(fixedNow())
	}
	o.Policy.AllowInsecure = true // httptest servers listen on 127.0.0.1
	d, err := NewDeliverer(o)
	require.NoError(t, err)
	return d
}

func generate(t testing.TB, alg string) *keys.Set {
	t.Helper()
	s, err := keys.Generate(alg)
	require.NoError(t, err)
	return s
}

// verifiedClaims are a notification JWT's claims as a receiver using
// golang-jwt reads them.
type verifiedClaims struct {
	TaskID      string `json:"taskId"`
	TaskVersion int64  `json:"taskVersion"`
	BodySHA256  string `json:"body_sha256"`
	jwt.RegisteredClaims
}

// parseJWT verifies a notification JWT with the set's published keys, as
// golang-jwt does.
func parseJWT(t *testing.T, set *keys.Set, signed string) *verifiedClaims {
	t.Helper()
	pubs, err := keys.ParseJWKS(set.JWKS())
	require.NoError(t, err)
	claims := &verifiedClaims{}
	_, err = jwt.ParseWithClaims(signed, claims, func(tok *jwt.Token) (any, error) {
		assert.Equal(t, set.KeyID(), tok.Header["kid"])
		return pubs[0].Key, nil
	}, jwt.WithValidMethods([]string{set.Algorithm()}), jwt.WithTimeFunc(fixedNow), jwt.WithExpirationRequired())
	require.NoError(t, err)
	return claims
}

func TestDeliverHeadersAndClaims(t *testing.T) {
	set := generate(t, keys.AlgES256)
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	d := newDeliverer(t, set, DelivererOptions{})
	hook := srv.URL + "/hooks/a2a?tenant=1"
	body := []byte(`{"kind":"task","id":"t-1"}`)

	tests := []struct {
		name        string
		auth        *a2a.PushAuthenticationInfo
		token       string
		contentType string
		wantAuth    string // "" none, "jwt" the signed token as bearer, else exact
		wantSig     bool
	}{
		{"no authentication", nil, "tok-1", "", "", true},
		{"bearer without credentials carries the JWT", &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}}, "", "", "jwt", false},
		{"bearer chosen among schemes", &a2a.PushAuthenticationInfo{Schemes: []string{"ApiKey", "bearer"}}, "", "", "jwt", false},
		{"bearer with credentials", &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "cred-1"}, "tok-2", "", "Bearer cred-1", true},
		{"basic with credentials", &a2a.PushAuthenticationInfo{Schemes: []string{"Basic"}, Credentials: "YWxpY2U6cHc="}, "", "", "Basic YWxpY2U6cHc=", true},
		{"unknown scheme without credentials", &a2a.PushAuthenticationInfo{Schemes: []string{"ApiKey"}}, "", "", "", true},
		{"A2A 1.0 body", nil, "", ContentTypeA2AJSON, "", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := Notification{
				Config:      a2a.PushNotificationConfig{ID: "cfg", URL: hook, Token: tt.token, Authentication: tt.auth},
				TaskID:      "t-1",
				TaskVersion: int64(7 + i),
				ContentType: tt.contentType,
				Body:        body,
			}
			r := d.Deliver(context.Background(), n)
			require.NoError(t, r.Err)
			assert.Equal(t, Delivered, r.Outcome)
			assert.Equal(t, http.StatusOK, r.StatusCode)
			assert.Equal(t, fixedNow(), r.At)

			reqs := rec.all()
			got := reqs[len(reqs)-1]
			assert.Equal(t, "/hooks/a2a?tenant=1", got.path)
			assert.Equal(t, body, got.body)
			h := got.header
			wantCT := tt.contentType
			if wantCT == "" {
				wantCT = "application/json"
			}
			assert.Equal(t, wantCT, h.Get("Content-Type"))
			assert.Equal(t, n.EventID(), h.Get("Webhook-Id"))
			assert.Equal(t, "t-1:"+h.Get("X-A2A-Task-Version"), h.Get("Webhook-Id"))
			assert.Equal(t, "1800000000", h.Get("Webhook-Timestamp"))
			assert.Equal(t, tt.token, h.Get("X-A2A-Notification-Token"))
			assert.Equal(t, "a2a-lambda-push/1", h.Get("User-Agent"))

			var signed string
			switch tt.wantAuth {
			case "jwt":
				require.True(t, strings.HasPrefix(h.Get("Authorization"), "Bearer "))
				signed = strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
			default:
				assert.Equal(t, tt.wantAuth, h.Get("Authorization"))
			}
			if tt.wantSig {
				signed = h.Get("X-A2A-Signature")
			} else {
				assert.Empty(t, h.Get("X-A2A-Signature"))
			}
			require.NotEmpty(t, signed)
			c := parseJWT(t, set, signed)
			assert.Equal(t, issuer, c.Issuer)
			assert.Equal(t, jwt.ClaimStrings{hook}, c.Audience)
			assert.Equal(t, fixedNow(), c.IssuedAt.Time)
			assert.Equal(t, fixedNow().Add(5*time.Minute), c.ExpiresAt.Time)
			assert.Equal(t, n.EventID(), c.ID)
			assert.Equal(t, "t-1", c.TaskID)
			assert.Equal(t, n.TaskVersion, c.TaskVersion)
			assert.Equal(t, BodyHash(body), c.BodySHA256)

			payload, err := base64.RawURLEncoding.DecodeString(strings.Split(signed, ".")[1])
			require.NoError(t, err)
			assert.JSONEq(t, `{"taskId":"t-1","taskVersion":`+strconv.FormatInt(n.TaskVersion, 10)+`,"body_sha256":"`+BodyHash(body)+`",`+
				`"iss":"`+issuer+`","aud":["`+hook+`"],"exp":1800000300,"iat":1800000000,"jti":"`+n.EventID()+`"}`, string(payload),
				"the registered claims as JWTs write them: aud an array, the dates whole seconds")
		})
	}
}

func TestDeliverEdDSA(t *testing.T) {
	set := generate(t, keys.AlgEdDSA)
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	d := newDeliverer(t, set, DelivererOptions{TokenTTL: time.Minute})
	r := d.Deliver(context.Background(), Notification{Config: a2a.PushNotificationConfig{URL: srv.URL}, TaskID: "t", TaskVersion: 1, Body: []byte("{}")})
	require.Equal(t, Delivered, r.Outcome, r.Err)
	c := parseJWT(t, set, rec.all()[0].header.Get("X-A2A-Signature"))
	assert.Equal(t, fixedNow().Add(time.Minute), c.ExpiresAt.Time)
}

func TestDeliverClassifiesStatus(t *testing.T) {
	set := generate(t, keys.AlgES256)
	retryDate := fixedNow().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		code       int
		retryAfter string
		outcome    Outcome
		wantAfter  time.Duration
	}{
		{200, "", Delivered, 0},
		{201, "", Delivered, 0},
		{202, "", Delivered, 0},
		{204, "", Delivered, 0},
		{301, "", Permanent, 0},
		{307, "", Permanent, 0},
		{400, "", Permanent, 0},
		{401, "", Permanent, 0},
		{403, "", Permanent, 0},
		{404, "", Permanent, 0},
		{409, "", Permanent, 0},
		{410, "", Permanent, 0},
		{413, "", Permanent, 0},
		{408, "", Retryable, 0},
		{425, "", Retryable, 0},
		{429, "7", Retryable, 7 * time.Second},
		{429, "", Retryable, 0},
		{500, "", Retryable, 0},
		{502, "", Retryable, 0},
		{503, retryDate, Retryable, 90 * time.Second},
		{503, "soon", Retryable, 0},
		{504, "", Retryable, 0},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				if tt.code >= 300 && tt.code < 400 {
					w.Header().Set("Location", "http://169.254.169.254/latest/meta-data/")
				}
				w.WriteHeader(tt.code)
				_, _ = w.Write([]byte(strings.Repeat("x", 64<<10)))
			}))
			defer srv.Close()
			r := newDeliverer(t, set, DelivererOptions{}).Deliver(context.Background(),
				Notification{Config: a2a.PushNotificationConfig{URL: srv.URL}, TaskID: "t", TaskVersion: 1})
			assert.Equal(t, tt.outcome, r.Outcome)
			assert.Equal(t, tt.code, r.StatusCode)
			assert.Equal(t, tt.wantAfter, r.RetryAfter)
			if tt.outcome == Delivered {
				assert.NoError(t, r.Err)
				return
			}
			assert.ErrorIs(t, r.Err, ErrStatus)
			assert.Equal(t, tt.code >= 300 && tt.code < 400, errors.Is(r.Err, ErrRedirect))
			assert.NotContains(t, r.Err.Error(), "169.254", "the redirect target is neither followed nor echoed")
		})
	}
}

func TestDeliverFailures(t *testing.T) {
	set := generate(t, keys.AlgES256)
	var hits atomic.Int32
	live := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer live.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)

	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name    string
		opts    DelivererOptions
		ctx     context.Context
		url     string
		token   string
		outcome Outcome
		is      error
	}{
		{"URL refused by the policy", DelivererOptions{}, context.Background(), "https://10.0.0.1/hook", "", Permanent, egress.ErrRefused},
		{"address refused at dial time", DelivererOptions{Client: egress.NewClient(egress.Policy{}, 0)}, context.Background(), live.URL + "/hook", "", Permanent, egress.ErrRefused},
		{"token not a header value", DelivererOptions{}, context.Background(), live.URL, "a\r\nX-Evil: 1", Permanent, ErrInvalidConfig},
		{"connection refused", DelivererOptions{}, context.Background(), closedURL + "/hook", "", Retryable, nil},
		{"timeout", DelivererOptions{Client: egress.NewClient(egress.Policy{AllowInsecure: true}, 150*time.Millisecond)}, context.Background(), hang.URL + "/hook", "", Retryable, nil},
		{"context canceled", DelivererOptions{}, canceled, live.URL + "/hook", "", Retryable, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newDeliverer(t, set, tt.opts).Deliver(tt.ctx, Notification{
				Config: a2a.PushNotificationConfig{URL: tt.url, Token: tt.token},
				TaskID: "t", TaskVersion: 3,
			})
			assert.Equal(t, tt.outcome, r.Outcome)
			assert.Zero(t, r.StatusCode)
			require.Error(t, r.Err)
			if tt.is != nil {
				assert.ErrorIs(t, r.Err, tt.is)
			}
			assert.NotContains(t, r.Err.Error(), "/hook", "errors name the host, not the URL")
		})
	}
	assert.Zero(t, hits.Load(), "no refused or invalid notification reached the webhook")

	_, err := NewDeliverer(DelivererOptions{Issuer: issuer})
	assert.Error(t, err)
	_, err = NewDeliverer(DelivererOptions{Signer: set})
	assert.Error(t, err)
}

// TestDeliverErrorsKeepSecrets: a failed delivery's error is logged and
// stored; it must not contain the URL's path or query (webhook URLs often
// embed a secret), the token or the credentials.
func TestDeliverErrorsKeepSecrets(t *testing.T) {
	set := generate(t, keys.AlgES256)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	defer srv.Close()
	for _, base := range []string{srv.URL, closed.URL} {
		r := newDeliverer(t, set, DelivererOptions{}).Deliver(context.Background(), Notification{
			Config: a2a.PushNotificationConfig{
				URL:            base + "/services/T0/B0/s3cretpath?key=s3cretquery",
				Token:          "s3crettoken",
				Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "s3cretcred"},
			},
			TaskID: "t", TaskVersion: 1,
		})
		require.Error(t, r.Err)
		assert.NotContains(t, r.Err.Error(), "s3cret")
		assert.Contains(t, r.Err.Error(), strings.TrimPrefix(base, "http://"))
	}
}

func TestCheckConfig(t *testing.T) {
	long := strings.Repeat("a", 4097)
	tests := []struct {
		name string
		cfg  a2a.PushNotificationConfig
		is   error
		msg  string
	}{
		{"minimal", a2a.PushNotificationConfig{URL: "https://example.com/h"}, nil, ""},
		{"full", a2a.PushNotificationConfig{URL: "https://example.com/h", Token: "tok en",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer", "Basic"}, Credentials: "abc.def"}}, nil, ""},
		{"schemes only", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}}}, nil, ""},
		{"bad URL", a2a.PushNotificationConfig{URL: "http://example.com/h"}, egress.ErrRefused, "https"},
		{"private URL", a2a.PushNotificationConfig{URL: "https://192.168.0.10/h"}, egress.ErrRefused, "private"},
		{"token with newline", a2a.PushNotificationConfig{URL: "https://example.com/h", Token: "a\nb"}, ErrInvalidConfig, "token"},
		{"token with outer space", a2a.PushNotificationConfig{URL: "https://example.com/h", Token: " tok3n"}, ErrInvalidConfig, "token"},
		{"token too long", a2a.PushNotificationConfig{URL: "https://example.com/h", Token: long}, ErrInvalidConfig, "token is longer"},
		{"scheme with space", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bea rer"}}}, ErrInvalidConfig, "scheme"},
		{"empty scheme", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{""}}}, ErrInvalidConfig, "scheme"},
		{"too many schemes", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: strings.Split("a,b,c,d,e,f,g,h,i", ",")}}, ErrInvalidConfig, "schemes"},
		{"credentials without scheme", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Credentials: "c"}}, ErrInvalidConfig, "need a scheme"},
		{"credentials with CR", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Basic"}, Credentials: "c\rd"}}, ErrInvalidConfig, "credentials"},
		{"credentials too long", a2a.PushNotificationConfig{URL: "https://example.com/h",
			Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Basic"}, Credentials: long}}, ErrInvalidConfig, "credentials are longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckConfig(egress.Policy{}, tt.cfg)
			if tt.is == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.msg)
			if tt.cfg.Token != "" {
				assert.NotContains(t, err.Error(), tt.cfg.Token)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := fixedNow()
	tests := []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-3", 0},
		{"12", 12 * time.Second},
		{" 12 ", 12 * time.Second},
		{"999999999", 24 * time.Hour},
		{now.Add(time.Minute).UTC().Format(http.TimeFormat), time.Minute},
		{now.Add(-time.Minute).UTC().Format(http.TimeFormat), 0},
		{"tomorrow", 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, parseRetryAfter(tt.v, now), tt.v)
	}
}

func TestEventID(t *testing.T) {
	assert.Equal(t, "task-1:42", EventID("task-1", 42))
	assert.Equal(t, "task-1:42", Notification{TaskID: "task-1", TaskVersion: 42}.EventID())
	assert.Equal(t, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU", BodyHash(nil))
}

// BenchmarkSignNotification measures signing one notification JWT (claims,
// body hash and signature; no network).
func BenchmarkSignNotification(b *testing.B) {
	body := []byte(strings.Repeat(`{"kind":"task","id":"t-1","status":{"state":"working"}}`, 20))
	for _, alg := range []string{keys.AlgES256, keys.AlgEdDSA} {
		b.Run(alg, func(b *testing.B) {
			d := newDeliverer(b, generate(b, alg), DelivererOptions{})
			n := Notification{Config: a2a.PushNotificationConfig{URL: "https://hooks.example.com/a2a"}, TaskID: "t-1", TaskVersion: 9, Body: body}
			now := fixedNow()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.sign(n, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
