package config

import (
	"strings"
)

// DefaultPushMaxAttempts is A2A_PUSH_MAX_ATTEMPTS unset.
const DefaultPushMaxAttempts = 10

// Push holds the push notification settings.
type Push struct {
	// Enabled turns push notification configs on; the card then says
	// capabilities.pushNotifications (A2A_PUSH_NOTIFICATIONS).
	Enabled bool
	// AllowInsecure allows plain http webhooks and loopback addresses, for
	// local development only (A2A_PUSH_ALLOW_INSECURE); the Lambda
	// functions refuse to start with it.
	AllowInsecure bool
	// SigningKeys is the PEM text of the notification signing keys
	// (A2A_PUSH_SIGNING_KEYS; in Lambda it may be an ssm: or
	// secretsmanager: reference). Empty locally: a key is generated at
	// start-up.
	SigningKeys string
	// Issuer is the iss claim of notification JWTs (A2A_PUSH_ISSUER);
	// empty means the public URL.
	Issuer string
	// MaxAttempts is the number of delivery attempts before a notification
	// is dead-lettered (A2A_PUSH_MAX_ATTEMPTS).
	MaxAttempts int
	// DeliveryQueueURL and DeadLetterQueueURL are the SQS queues of the
	// push and deliver functions (A2A_PUSH_DELIVERY_QUEUE_URL,
	// A2A_PUSH_DEAD_LETTER_QUEUE_URL).
	DeliveryQueueURL   string
	DeadLetterQueueURL string
	// StreamDeadLetterQueueURL is the SQS queue where the push function
	// sends the stream records that can never become jobs, with their
	// reason (A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL).
	StreamDeadLetterQueueURL string
}

// push reads the push notification settings.
func (r *reader) push() Push {
	p := Push{
		Enabled:                  r.boolean("A2A_PUSH_NOTIFICATIONS", true),
		AllowInsecure:            r.boolean("A2A_PUSH_ALLOW_INSECURE", false),
		SigningKeys:              strings.TrimSpace(r.getenv("A2A_PUSH_SIGNING_KEYS")),
		Issuer:                   r.publicURL("A2A_PUSH_ISSUER", ""),
		MaxAttempts:              r.intRange("A2A_PUSH_MAX_ATTEMPTS", DefaultPushMaxAttempts, 1, 100),
		DeliveryQueueURL:         r.absoluteURL("A2A_PUSH_DELIVERY_QUEUE_URL"),
		DeadLetterQueueURL:       r.absoluteURL("A2A_PUSH_DEAD_LETTER_QUEUE_URL"),
		StreamDeadLetterQueueURL: r.absoluteURL("A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL"),
	}
	return p
}
