package a2a

import (
	"strconv"
	"strings"
)

// The delivery log extension: a task's push notification deliveries, each
// with its attempts, and the redrive of the ones that failed.
const (
	MethodDeliveriesList    = "tasks/deliveries/list"
	MethodDeliveriesRedrive = "tasks/deliveries/redrive"
)

// Delivery states.
const (
	// DeliveryQueued: a redrive was asked for; its first attempt is to come.
	DeliveryQueued = "queued"
	// DeliveryRetrying: an attempt failed and another is scheduled.
	DeliveryRetrying = "retrying"
	// DeliveryDelivered: the webhook accepted the notification.
	DeliveryDelivered = "delivered"
	// DeliveryFailed: no further attempt will be made; the notification is
	// dead-lettered and can be redriven.
	DeliveryFailed = "failed"
)

// ListDeliveriesParams are the params of tasks/deliveries/list.
type ListDeliveriesParams struct {
	TaskID    string `json:"taskId"`
	PageSize  *int   `json:"pageSize,omitempty"`
	PageToken string `json:"pageToken,omitempty"`
}

// Validate checks tasks/deliveries/list params.
func (p *ListDeliveriesParams) Validate() error {
	if strings.TrimSpace(p.TaskID) == "" {
		return InvalidParams("params.taskId", "is required")
	}
	if p.PageSize != nil && (*p.PageSize < 1 || *p.PageSize > MaxPageSize) {
		return InvalidParams("params.pageSize", "must be between 1 and %d, got %d", MaxPageSize, *p.PageSize)
	}
	return nil
}

// ListDeliveriesResult is the result of tasks/deliveries/list: the task's
// deliveries, newest task version first.
type ListDeliveriesResult struct {
	Deliveries    []Delivery `json:"deliveries"`
	NextPageToken string     `json:"nextPageToken"`
}

// Delivery is one notification (one task version) to one webhook (one push
// config) with its attempts.
type Delivery struct {
	TaskID   string `json:"taskId"`
	ConfigID string `json:"configId"`
	// EventID is the Webhook-Id of the notification: <taskId>:<version>.
	EventID     string `json:"eventId"`
	TaskVersion int64  `json:"taskVersion"`
	// State is queued, retrying, delivered or failed (see the Delivery
	// constants).
	State        string `json:"state"`
	DeadLettered bool   `json:"deadLettered"`
	// NextAttemptAt is when the next attempt is due, while retrying.
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	// Redrives counts the redrives asked for.
	Redrives  int    `json:"redrives"`
	UpdatedAt string `json:"updatedAt"`
	// Attempts are the attempts kept, oldest first; a redrive numbers its
	// attempts from 1 again.
	Attempts []DeliveryAttempt `json:"attempts"`
}

// DeliveryAttempt is one attempt of a delivery.
type DeliveryAttempt struct {
	Attempt int    `json:"attempt"`
	At      string `json:"at"`
	// StatusCode is the webhook's HTTP status, absent when it did not answer.
	StatusCode int `json:"statusCode,omitempty"`
	// Error says why the attempt did not deliver (it names the webhook's
	// host, never its path or secrets).
	Error string `json:"error,omitempty"`
	// State is the delivery's state after the attempt.
	State         string `json:"state"`
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	DeadLettered  bool   `json:"deadLettered,omitempty"`
}

// RedriveDeliveriesParams are the params of tasks/deliveries/redrive: the
// task's failed deliveries, of one event and one config when they are
// given, are sent again.
type RedriveDeliveriesParams struct {
	TaskID   string `json:"taskId"`
	EventID  string `json:"eventId,omitempty"`
	ConfigID string `json:"configId,omitempty"`
}

// Validate checks tasks/deliveries/redrive params.
func (p *RedriveDeliveriesParams) Validate() error {
	if strings.TrimSpace(p.TaskID) == "" {
		return InvalidParams("params.taskId", "is required")
	}
	if p.EventID != "" {
		if _, err := p.Version(); err != nil {
			return err
		}
	}
	return nil
}

// Version is the task version EventID names, or 0 when it is empty. An
// event id of another task, or one that is not <taskId>:<version>, is an
// invalid params error.
func (p *RedriveDeliveriesParams) Version() (int64, error) {
	if p.EventID == "" {
		return 0, nil
	}
	i := strings.LastIndexByte(p.EventID, ':')
	n, err := strconv.ParseInt(p.EventID[i+1:], 10, 64)
	if i < 0 || err != nil || n < 1 {
		return 0, InvalidParams("params.eventId", "%q is not an event id (<taskId>:<version>, as Webhook-Id and tasks/deliveries/list show it)", truncateValue(p.EventID))
	}
	if p.EventID[:i] != p.TaskID {
		return 0, InvalidParams("params.eventId", "%q is an event of another task than %s", truncateValue(p.EventID), p.TaskID)
	}
	return n, nil
}

// RedriveDeliveriesResult is the result of tasks/deliveries/redrive: the
// deliveries queued again.
type RedriveDeliveriesResult struct {
	Redriven []Delivery `json:"redriven"`
}
