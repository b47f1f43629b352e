package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPush(t *testing.T) {
	c, err := Load(env(map[string]string{
		"A2A_PUSH_NOTIFICATIONS": "false", "A2A_PUSH_ALLOW_INSECURE": "true", "A2A_PUSH_SIGNING_KEYS": "  PEM  ",
		"A2A_PUSH_ISSUER": "https://agent.example.com/", "A2A_PUSH_MAX_ATTEMPTS": "4",
		"A2A_PUSH_DELIVERY_QUEUE_URL":           "https://sqs.us-east-1.amazonaws.com/123456789012/delivery",
		"A2A_PUSH_DEAD_LETTER_QUEUE_URL":        "https://sqs.us-east-1.amazonaws.com/123456789012/dead",
		"A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/stream-failures",
	}))
	require.NoError(t, err)
	assert.Equal(t, Push{
		Enabled: false, AllowInsecure: true, SigningKeys: "PEM", Issuer: "https://agent.example.com", MaxAttempts: 4,
		DeliveryQueueURL:         "https://sqs.us-east-1.amazonaws.com/123456789012/delivery",
		DeadLetterQueueURL:       "https://sqs.us-east-1.amazonaws.com/123456789012/dead",
		StreamDeadLetterQueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/stream-failures",
	}, c.Push)
}

func TestPushErrors(t *testing.T) {
	for name, tc := range map[string]struct{ key, value, want string }{
		"switch":              {"A2A_PUSH_NOTIFICATIONS", "sometimes", `A2A_PUSH_NOTIFICATIONS="sometimes": must be true or false`},
		"insecure":            {"A2A_PUSH_ALLOW_INSECURE", "yes please", "A2A_PUSH_ALLOW_INSECURE"},
		"issuer":              {"A2A_PUSH_ISSUER", "agent.example.com", "A2A_PUSH_ISSUER"},
		"attempts":            {"A2A_PUSH_MAX_ATTEMPTS", "0", "A2A_PUSH_MAX_ATTEMPTS=\"0\": must be an integer from 1 to 100"},
		"queue":               {"A2A_PUSH_DELIVERY_QUEUE_URL", "delivery", "A2A_PUSH_DELIVERY_QUEUE_URL"},
		"dead letters":        {"A2A_PUSH_DEAD_LETTER_QUEUE_URL", "ftp://x", "A2A_PUSH_DEAD_LETTER_QUEUE_URL"},
		"stream dead letters": {"A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL", "queue", "A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(env(map[string]string{tc.key: tc.value}))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
