package push

import "time"

// DeliveryState is where a notification's delivery stands.
type DeliveryState string

// Delivery states.
const (
	// StateRetrying: an attempt failed and another is scheduled.
	StateRetrying DeliveryState = "retrying"
	// StateDelivered: the webhook accepted the notification.
	StateDelivered DeliveryState = "delivered"
	// StateFailed: no further attempt will be made (permanent failure,
	// attempts exhausted, or the queue closed); the notification is
	// dead-lettered.
	StateFailed DeliveryState = "failed"
)

// DeliveryStatus is what operators see about one notification to one
// webhook after an attempt. It holds no secret: no URL, token or
// credentials, only ids, counts, the status code and a host-only error.
type DeliveryStatus struct {
	EventID  string
	TaskID   string
	ConfigID string
	State    DeliveryState
	// Attempts is the number of attempts made so far.
	Attempts       int
	LastStatusCode int
	// LastError is the last attempt's error message, empty when delivered.
	LastError     string
	LastAttemptAt time.Time
	// NextAttemptAt is set when State is StateRetrying.
	NextAttemptAt time.Time
	// DeliveredAt is set when State is StateDelivered.
	DeliveredAt time.Time
}

// Decision is what to do after an attempt.
type Decision struct {
	// Status is the delivery status to record.
	Status DeliveryStatus
	// Retry is true when another attempt should follow after Delay.
	Retry bool
	Delay time.Duration
}

// Decide applies the policy to the result r of attempt number attempt (1
// for the first) of n, and says whether and when to try again, with the
// status to record. Both the SQS delivery function (visibility timeout =
// Delay, attempt = receive count) and the in-process queue use it.
func (p RetryPolicy) Decide(n Notification, attempt int, r Result) Decision {
	s := DeliveryStatus{
		EventID:        n.EventID(),
		TaskID:         n.TaskID,
		ConfigID:       n.Config.ID,
		Attempts:       attempt,
		LastStatusCode: r.StatusCode,
		LastAttemptAt:  r.At,
	}
	if r.Err != nil {
		s.LastError = r.Err.Error()
	}
	if r.Outcome == Delivered {
		s.State = StateDelivered
		s.DeliveredAt = r.At.Add(r.Duration)
		return Decision{Status: s}
	}
	delay, retry := p.Next(attempt, r)
	if !retry {
		s.State = StateFailed
		return Decision{Status: s}
	}
	s.State = StateRetrying
	s.NextAttemptAt = r.At.Add(r.Duration).Add(delay)
	return Decision{Status: s, Retry: true, Delay: delay}
}
