// Package push delivers A2A push notifications: one signed HTTP POST of one
// task change to one client webhook, classified as delivered, retryable or
// permanent, with the retry policy that both the SQS delivery function and
// the in-process queue (package memqueue) apply.
//
// # What a notification carries
//
//	POST <config.url>
//	Content-Type: application/json            (A2A 0.3 Task snapshot; application/a2a+json for 1.0)
//	Webhook-Id: <taskId>:<version>            (the event id, the same on every retry)
//	Webhook-Timestamp: <unix seconds of this attempt>
//	X-A2A-Task-Version: <version>             (order notifications of one task by it)
//	X-A2A-Notification-Token: <config.token>  (when the config has a token)
//	Authorization: <scheme> <credentials>     (when config.authentication has credentials)
//	Authorization: Bearer <JWT>               (when it asks for Bearer without credentials)
//	X-A2A-Signature: <JWT>                    (in every other case)
//
// The JWT (ES256 or EdDSA, header kid) has the claims iss (the agent's
// public URL), aud (the webhook URL exactly as registered), iat, exp (5
// minutes later), jti (the event id), taskId, taskVersion and body_sha256
// (the base64url SHA-256 of the body bytes). The public keys are the JWKS
// of package keys; package verify checks all of this on the receiving end.
//
// Every webhook URL is checked by the egress policy at registration
// (CheckConfig) and again before each delivery, and every connection goes
// through the egress dial guard.
package push

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Header names of a notification.
const (
	// HeaderNotificationToken carries the config's token, as the A2A 0.3
	// specification suggests.
	HeaderNotificationToken = "X-A2A-Notification-Token"
	// HeaderSignature carries the notification JWT when Authorization does
	// not.
	HeaderSignature = "X-A2A-Signature"
	// HeaderTaskVersion carries the task version, so a receiver can order
	// notifications of one task and ignore older ones.
	HeaderTaskVersion = "X-A2A-Task-Version"
	// HeaderWebhookID is the Standard Webhooks message id: the event id.
	HeaderWebhookID = "Webhook-Id"
	// HeaderWebhookTimestamp is the Standard Webhooks timestamp: the unix
	// time in seconds at which this attempt was signed.
	HeaderWebhookTimestamp = "Webhook-Timestamp"
)

// Content types of notification bodies.
const (
	// ContentTypeJSON is used for A2A 0.3 (a Task snapshot).
	ContentTypeJSON = "application/json"
	// ContentTypeA2AJSON is used for A2A 1.0 (a StreamResponse).
	ContentTypeA2AJSON = "application/a2a+json"
)

// Notification is one task change to deliver to one webhook. It encodes
// as JSON (for a queue message); note that it then contains the config's
// token and credentials, so the queue must be treated as secret storage.
type Notification struct {
	// Config is the webhook registration: URL, token and authentication.
	Config a2a.PushNotificationConfig `json:"config"`
	// TaskID and TaskVersion name the change; together they form the
	// event id.
	TaskID      string `json:"taskId"`
	TaskVersion int64  `json:"taskVersion"`
	// ContentType is the media type of Body; empty means ContentTypeJSON.
	ContentType string `json:"contentType,omitempty"`
	// Body is the rendered payload, sent as is.
	Body []byte `json:"body"`
}

// EventID returns the event id: the task id, a colon and the task version.
// It is the same on every attempt, so receivers can drop duplicates.
func (n Notification) EventID() string { return EventID(n.TaskID, n.TaskVersion) }

// EventID returns the event id of a task version ("<taskId>:<version>").
func EventID(taskID string, version int64) string {
	return taskID + ":" + strconv.FormatInt(version, 10)
}

// Claims are the claims of a notification JWT, in the order they are
// written.
type Claims struct {
	// TaskID is the task the notification is about.
	TaskID string `json:"taskId"`
	// TaskVersion is the task version the notification reports.
	TaskVersion int64 `json:"taskVersion"`
	// BodySHA256 is BodyHash of the request body.
	BodySHA256 string `json:"body_sha256"`
	// Issuer is the agent's public URL.
	Issuer string `json:"iss,omitempty"`
	// Audience is the webhook's URL (one element).
	Audience []string `json:"aud,omitempty"`
	// ExpiresAt and IssuedAt are NumericDates: seconds since the epoch.
	ExpiresAt int64 `json:"exp,omitempty"`
	IssuedAt  int64 `json:"iat,omitempty"`
	// ID is the event id (EventID).
	ID string `json:"jti,omitempty"`
}

// BodyHash returns the base64url (unpadded) SHA-256 of body, the value of
// the body_sha256 claim.
func BodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
