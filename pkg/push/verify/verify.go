// Package verify is the receiving end of a2a-lambda push notifications: a
// webhook uses it to prove that a notification was sent by the agent, for
// this webhook, recently, with this exact body, and not before.
//
// A Verifier checks, for each request: the JWT (from X-A2A-Signature, or
// Authorization: Bearer) is signed by a key of the agent's JWKS with ES256
// or EdDSA; its aud is the receiver's own URL; iat and exp are within a
// small clock skew and iat is recent; body_sha256 matches the body; the
// Webhook-Id and X-A2A-Task-Version headers agree with the claims; the
// X-A2A-Notification-Token header matches the token the receiver
// registered (when it registered one); and the event id was not accepted
// before (a bounded, expiring memory of event ids).
//
// Use Middleware around an http.Handler, or Verify directly.
package verify

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/httpstatus"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// Verification errors. Every error of Verify wraps exactly one of them.
var (
	// ErrNoSignature: neither X-A2A-Signature nor a bearer JWT is present.
	ErrNoSignature = errors.New("push notification has no signature")
	// ErrMalformed: the JWT or its claims are not of the expected form.
	ErrMalformed = errors.New("push notification signature is malformed")
	// ErrUnknownKey: the JWT's kid is not in the agent's JWKS.
	ErrUnknownKey = errors.New("push notification signed with an unknown key")
	// ErrKeysUnavailable: the agent's JWKS could not be fetched.
	ErrKeysUnavailable = errors.New("push notification keys unavailable")
	// ErrSignature: the signature does not verify, or its alg is not
	// allowed for the key.
	ErrSignature = errors.New("push notification signature is invalid")
	// ErrAudience: the JWT is for another webhook URL.
	ErrAudience = errors.New("push notification is for another audience")
	// ErrIssuer: the JWT comes from another issuer than the expected one.
	ErrIssuer = errors.New("push notification has an unexpected issuer")
	// ErrExpired: the JWT's exp has passed.
	ErrExpired = errors.New("push notification signature has expired")
	// ErrNotYetValid: the JWT's iat is in the future.
	ErrNotYetValid = errors.New("push notification signature is not valid yet")
	// ErrTooOld: the JWT's iat is older than MaxAge.
	ErrTooOld = errors.New("push notification signature is too old")
	// ErrBodyHash: the body does not match the signed body_sha256.
	ErrBodyHash = errors.New("push notification body does not match its signature")
	// ErrBodyTooLarge: the body is larger than MaxBodyBytes.
	ErrBodyTooLarge = errors.New("push notification body is too large")
	// ErrHeaderMismatch: Webhook-Id or X-A2A-Task-Version disagree with the
	// signed claims.
	ErrHeaderMismatch = errors.New("push notification headers do not match its signature")
	// ErrToken: the notification token is missing or wrong.
	ErrToken = errors.New("push notification token does not match")
	// ErrReplayed: this event id was accepted before (a duplicate or a
	// replay).
	ErrReplayed = errors.New("push notification event was already received")
	// ErrDuplicate: the event was handled already; the middleware answers
	// 200 so that the agent stops retrying, and does not call the handler.
	ErrDuplicate = errors.New("duplicate notification ignored")
	// ErrBusy: the event id memory is full, or the same event is being
	// handled by another request; try again later.
	ErrBusy = errors.New("push notification receiver is busy")
)

// errCacheFull is the event cache's refusal, reported as ErrBusy.
var errCacheFull = fmt.Errorf("%w: too many recent event ids", ErrBusy)

// Defaults of Options.
const (
	DefaultClockSkew    = 30 * time.Second
	DefaultMaxAge       = 5 * time.Minute
	DefaultDedupeWindow = time.Hour
	DefaultMaxEvents    = 100_000
	DefaultMaxBodyBytes = 10 << 20
)

// Options configure a Verifier.
type Options struct {
	// Keys finds the agent's public keys: NewJWKS(agent's
	// /.well-known/jwks.json URL, ...) or StaticKeys. Required.
	Keys KeySource
	// Audience is this webhook's URL exactly as registered in the push
	// config; the JWT's aud must equal it. Required.
	Audience string
	// Issuer, when set, must equal the JWT's iss (the agent's public URL).
	Issuer string
	// Token, when set, is the token registered in the push config; the
	// X-A2A-Notification-Token header must equal it.
	Token string
	// ClockSkew is the tolerance on iat and exp (DefaultClockSkew).
	ClockSkew time.Duration
	// MaxAge bounds how old iat may be (DefaultMaxAge).
	MaxAge time.Duration
	// DedupeWindow is how long an accepted event id is remembered at least
	// (DefaultDedupeWindow); it is also remembered until its JWT expires.
	DedupeWindow time.Duration
	// MaxEvents bounds the remembered event ids (DefaultMaxEvents).
	MaxEvents int
	// MaxBodyBytes bounds the body (DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Clock tells the time; nil means the system clock.
	Clock clock.Clock
	// OnUnanswered, when set, is told of every request the middleware
	// answers by itself without calling the handler: the status it
	// answered and why (a verification error, ErrBusy, or ErrDuplicate
	// with 200).
	OnUnanswered func(r *http.Request, status int, err error)
}

// Notification is a verified notification.
type Notification struct {
	// EventID is "<taskId>:<version>", the same on every delivery attempt.
	EventID     string
	TaskID      string
	TaskVersion int64
	// Issuer is the agent's URL (the iss claim); KeyID signed the JWT.
	Issuer   string
	KeyID    string
	IssuedAt time.Time
	// ContentType and Body are the request's; Body is a Task (A2A 0.3,
	// application/json) or a StreamResponse (A2A 1.0,
	// application/a2a+json).
	ContentType string
	Body        []byte
}

// Verifier verifies notifications. It is safe for concurrent use.
type Verifier struct {
	keys         KeySource
	audience     string
	issuer       string
	token        string
	skew         time.Duration
	maxAge       time.Duration
	dedupe       time.Duration
	maxBodyBytes int64
	clock        clock.Clock
	unanswered   func(*http.Request, int, error)
	events       *eventCache
	parser       *jwt.Parser
}

// New returns a Verifier, or an error when Keys or Audience is missing.
func New(o Options) (*Verifier, error) {
	if o.Keys == nil {
		return nil, errors.New("push verifier: a key source is required")
	}
	if o.Audience == "" {
		return nil, errors.New("push verifier: the audience (this webhook's URL) is required")
	}
	v := &Verifier{
		keys: o.Keys, audience: o.Audience, issuer: o.Issuer, token: o.Token,
		skew: o.ClockSkew, maxAge: o.MaxAge, dedupe: o.DedupeWindow, maxBodyBytes: o.MaxBodyBytes, clock: clock.Or(o.Clock), unanswered: o.OnUnanswered,
	}
	v.skew = positive.Or(v.skew, DefaultClockSkew)
	v.maxAge = positive.Or(v.maxAge, DefaultMaxAge)
	v.dedupe = positive.Or(v.dedupe, DefaultDedupeWindow)
	v.maxBodyBytes = positive.Or(v.maxBodyBytes, DefaultMaxBodyBytes)
	v.events = newEventCache(positive.Or(o.MaxEvents, DefaultMaxEvents))
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{keys.AlgES256, keys.AlgEdDSA}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(v.skew),
		jwt.WithAudience(v.audience),
		jwt.WithTimeFunc(v.clock.Now),
	}
	if v.issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.issuer))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// Verify reads the request's body and verifies the notification (see the
// package documentation). On success it remembers the event id, so a
// second delivery of the same event fails with ErrReplayed, and leaves
// r.Body readable again from the start. Every error wraps one of the
// package's Err values.
func (v *Verifier) Verify(r *http.Request) (*Notification, error) {
	n, expires, err := v.check(r)
	if err != nil {
		return nil, err
	}
	state, err := v.events.reserve(n.EventID, expires, v.clock.Now())
	if err != nil {
		return nil, err
	}
	switch state {
	case eventDone:
		return nil, fmt.Errorf("%w: %s", ErrReplayed, n.EventID)
	case eventInFlight:
		return nil, fmt.Errorf("%w: event %s is being handled by another request", ErrBusy, n.EventID)
	}
	v.events.commit(n.EventID)
	return n, nil
}

// check verifies everything but the event id's novelty, and returns how
// long the event id must be remembered.
func (v *Verifier) check(r *http.Request) (*Notification, time.Time, error) {
	signed := r.Header.Get(push.HeaderSignature)
	if signed == "" {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if ok && strings.EqualFold(scheme, "Bearer") && strings.Count(token, ".") == 2 {
			signed = strings.TrimSpace(token)
		}
	}
	if signed == "" {
		return nil, time.Time{}, ErrNoSignature
	}

	// The signature first: an unauthenticated body is never read.
	claims := &tokenClaims{}
	var kid string
	_, err := v.parser.ParseWithClaims(signed, claims, func(t *jwt.Token) (any, error) {
		kid, _ = t.Header["kid"].(string)
		if kid == "" {
			return nil, fmt.Errorf("%w: no kid in the JWT header", ErrMalformed)
		}
		k, err := v.keys.Key(r.Context(), kid)
		if err != nil {
			return nil, err
		}
		if k.Alg != t.Method.Alg() {
			return nil, fmt.Errorf("%w: alg %s does not match key %q (%s)", ErrSignature, t.Method.Alg(), kid, k.Alg)
		}
		return k.Key, nil
	})
	if err != nil {
		return nil, time.Time{}, jwtError(err)
	}
	now := v.clock.Now()
	if claims.IssuedAt == nil {
		return nil, time.Time{}, fmt.Errorf("%w: no iat claim", ErrMalformed)
	}
	if age := now.Sub(claims.IssuedAt.Time); age > v.maxAge+v.skew {
		return nil, time.Time{}, fmt.Errorf("%w: issued %s ago", ErrTooOld, age.Round(time.Second))
	}
	if claims.ID == "" || claims.TaskID == "" || claims.BodySHA256 == "" {
		return nil, time.Time{}, fmt.Errorf("%w: jti, taskId and body_sha256 are required", ErrMalformed)
	}
	body, err := v.readBody(r)
	if err != nil {
		return nil, time.Time{}, err
	}
	if subtle.ConstantTimeCompare([]byte(push.BodyHash(body)), []byte(claims.BodySHA256)) != 1 {
		return nil, time.Time{}, ErrBodyHash
	}
	if id := r.Header.Get(push.HeaderWebhookID); id != "" && id != claims.ID {
		return nil, time.Time{}, fmt.Errorf("%w: %s is not the signed event id", ErrHeaderMismatch, push.HeaderWebhookID)
	}
	if ver := r.Header.Get(push.HeaderTaskVersion); ver != "" && ver != strconv.FormatInt(claims.TaskVersion, 10) {
		return nil, time.Time{}, fmt.Errorf("%w: %s is not the signed version", ErrHeaderMismatch, push.HeaderTaskVersion)
	}
	if v.token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get(push.HeaderNotificationToken)), []byte(v.token)) != 1 {
		return nil, time.Time{}, ErrToken
	}
	expires := now.Add(v.dedupe)
	if exp := claims.ExpiresAt.Add(v.skew); exp.After(expires) {
		expires = exp
	}
	return &Notification{
		EventID:     claims.ID,
		TaskID:      claims.TaskID,
		TaskVersion: claims.TaskVersion,
		Issuer:      claims.Issuer,
		KeyID:       kid,
		IssuedAt:    claims.IssuedAt.Time,
		ContentType: r.Header.Get("Content-Type"),
		Body:        body,
	}, expires, nil
}

// tokenClaims are a notification JWT's claims (the sender's push.Claims)
// as golang-jwt reads and validates them.
type tokenClaims struct {
	TaskID      string `json:"taskId"`
	TaskVersion int64  `json:"taskVersion"`
	BodySHA256  string `json:"body_sha256"`
	jwt.RegisteredClaims
}

// readBody reads at most maxBodyBytes and puts a fresh reader back.
func (v *Verifier) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, v.maxBodyBytes+1))
	_ = r.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: read body: %w", ErrMalformed, err)
	}
	if int64(len(body)) > v.maxBodyBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, v.maxBodyBytes)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// jwtError maps the JWT library's errors to the package's.
func jwtError(err error) error {
	for _, own := range []error{ErrMalformed, ErrUnknownKey, ErrKeysUnavailable, ErrSignature} {
		if errors.Is(err, own) {
			return err
		}
	}
	mapping := []struct{ lib, own error }{
		{jwt.ErrTokenExpired, ErrExpired},
		{jwt.ErrTokenUsedBeforeIssued, ErrNotYetValid},
		{jwt.ErrTokenNotValidYet, ErrNotYetValid},
		{jwt.ErrTokenInvalidAudience, ErrAudience},
		{jwt.ErrTokenInvalidIssuer, ErrIssuer},
		{jwt.ErrTokenSignatureInvalid, ErrSignature},
	}
	for _, m := range mapping {
		if errors.Is(err, m.lib) {
			return fmt.Errorf("%w: %w", m.own, err)
		}
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

type contextKey struct{}

// FromContext returns the notification that Middleware verified for the
// request whose context this is.
func FromContext(ctx context.Context) (*Notification, bool) {
	n, ok := ctx.Value(contextKey{}).(*Notification)
	return n, ok
}

// Middleware verifies each request before next sees it; next finds the
// notification with FromContext and reads the body from r.Body as usual.
// An event id is remembered only once next answers 2xx, so a notification
// whose handling failed is accepted again when the agent retries it.
//
// Answers without calling next: 401 for a notification that does not
// verify; 413 for a body over MaxBodyBytes; 503 with Retry-After when the
// keys are unavailable or the kid is unknown (it may be a fresh rotation),
// or when the event id memory is full; 429 with Retry-After while the same
// event is being handled by another request; and 200 for an event already
// accepted, so the agent stops retrying a duplicate.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, expires, err := v.check(r)
		if err != nil {
			v.refuse(w, r, err)
			return
		}
		state, err := v.events.reserve(n.EventID, expires, v.clock.Now())
		switch {
		case err != nil:
			v.refuse(w, r, err)
			return
		case state == eventDone:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, ErrDuplicate.Error()+"\n")
			v.tell(r, http.StatusOK, ErrDuplicate)
			return
		case state == eventInFlight:
			w.Header().Set("Retry-After", "10")
			busy := fmt.Errorf("%w: the same event is being handled", ErrBusy)
			http.Error(w, busy.Error(), http.StatusTooManyRequests)
			v.tell(r, http.StatusTooManyRequests, busy)
			return
		}
		sw := httpstatus.NewWriter(w)
		returned := false
		defer func() {
			code := sw.Status()
			if code == 0 && returned {
				code = http.StatusOK // nothing written: net/http answers 200
			}
			// A handler that panics before writing leaves code 0: the
			// event is released.
			if code >= 200 && code < 300 {
				v.events.commit(n.EventID)
			} else {
				v.events.release(n.EventID)
			}
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), contextKey{}, n)))
		returned = true
	})
}

// refuse answers a failed verification, and tells OnUnanswered.
func (v *Verifier) refuse(w http.ResponseWriter, r *http.Request, err error) {
	code := http.StatusUnauthorized
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		code = http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrKeysUnavailable), errors.Is(err, ErrUnknownKey), errors.Is(err, ErrBusy):
		code = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "30")
	}
	http.Error(w, err.Error(), code)
	v.tell(r, code, err)
}

func (v *Verifier) tell(r *http.Request, status int, err error) {
	if v.unanswered != nil {
		v.unanswered(r, status, err)
	}
}
