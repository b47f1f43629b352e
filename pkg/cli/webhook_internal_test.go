package cli

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name, body, state, text string
	}{
		{"0.3 task", `{"kind":"task","id":"t","status":{"state":"working","message":{"kind":"message","parts":[{"kind":"text","text":"a"},{"kind":"text","text":"b"}]}}}`, "working", "ab"},
		{"0.3 task without a message", `{"kind":"task","id":"t","status":{"state":"submitted"}}`, "submitted", ""},
		{"1.0 task", `{"task":{"id":"t","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"parts":[{"text":"Name?"}]}}}}`, "input-required", "Name?"},
		{"1.0 status update", `{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}`, "auth-required", ""},
		{"1.0 artifact update", `{"artifactUpdate":{"taskId":"t","artifact":{"parts":[{"text":"x"}]}}}`, "", ""},
		{"not JSON", `hello`, "", ""},
	} {
		state, text := summarize([]byte(tc.body))
		assert.Equal(t, tc.state, state, tc.name)
		assert.Equal(t, tc.text, text, tc.name)
	}
}

func TestListenURL(t *testing.T) {
	bound := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9001}
	for addr, want := range map[string]string{
		"127.0.0.1:0":    "http://127.0.0.1:9001/",
		":0":             "http://127.0.0.1:9001/",
		"0.0.0.0:9001":   "http://127.0.0.1:9001/",
		"[::]:9001":      "http://127.0.0.1:9001/",
		"localhost:9001": "http://localhost:9001/",
		"[::1]:9001":     "http://[::1]:9001/",
	} {
		assert.Equal(t, want, listenURL(addr, bound), addr)
	}
}

func TestJWKSLocation(t *testing.T) {
	for _, tc := range []struct{ jwks, agent, want string }{
		{"", "http://127.0.0.1:8000", "http://127.0.0.1:8000/.well-known/jwks.json"},
		{"", "https://agent.example.com/", "https://agent.example.com/.well-known/jwks.json"},
		{"", "https://agent.example.com/.well-known/agent-card.json", "https://agent.example.com/.well-known/jwks.json"},
		{"https://keys.example.com/k.json", "https://agent.example.com", "https://keys.example.com/k.json"},
	} {
		got, err := jwksLocation(tc.jwks, tc.agent)
		assert.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	_, err := jwksLocation("", "agent.example.com")
	assert.ErrorContains(t, err, "is not an http(s) URL")
}
