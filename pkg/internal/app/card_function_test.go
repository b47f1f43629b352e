package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
)

func TestCardFunctionServesItsSampleEvent(t *testing.T) {
	env := map[string]string{"A2A_PUSH_SIGNING_KEYS": keystest.PEM(t, "card-test")}
	h, err := boot.NewCardFunction(context.Background(), func(k string) string { return env[k] }, builtin.Registry(), io.Discard)
	require.NoError(t, err)
	fn := boot.LambdaHTTP(h, nil)
	ev := loadEvent(t, "card-get.json")

	resp, err := fn(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Body)
	assert.Equal(t, "application/json", resp.Headers["Content-Type"])
	var card map[string]any
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &card))
	assert.Equal(t, "a2a-lambda demo agent", card["name"])
	assert.Equal(t, "https://abc123def4.execute-api.us-east-1.amazonaws.com", card["url"], "the API's own URL, from the event")
	assert.Equal(t, []any{map[string]any{"bearer": []any{}}}, card["security"], "a deployed agent requires a bearer token")
	assert.Equal(t, true, card["capabilities"].(map[string]any)["pushNotifications"])

	// Revalidation with the ETag the first answer carried.
	ev.Headers["if-none-match"] = resp.Headers["Etag"]
	resp, err = fn(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
	assert.Empty(t, resp.Body)

	// The legacy path serves the same card; other routes are not this function's.
	ev = loadEvent(t, "card-get.json")
	ev.RawPath, ev.RequestContext.HTTP.Path = "/.well-known/agent.json", "/.well-known/agent.json"
	resp, err = fn(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	// The JWKS that verifies push notifications.
	ev.RawPath, ev.RequestContext.HTTP.Path = "/.well-known/jwks.json", "/.well-known/jwks.json"
	resp, err = fn(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var jwks struct {
		Keys []map[string]any `json:"keys"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &jwks))
	require.Len(t, jwks.Keys, 1)
	assert.Equal(t, "card-test", jwks.Keys[0]["kid"])
	assert.NotContains(t, jwks.Keys[0], "d", "only the public key")

	ev.RawPath, ev.RequestContext.HTTP.Path, ev.RequestContext.HTTP.Method = "/", "/", "POST"
	resp, err = fn(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestCardFunctionConfiguration(t *testing.T) {
	env := map[string]string{"A2A_PUBLIC_URL": "https://agent.example.com", "A2A_PUSH_NOTIFICATIONS": "false"}
	h, err := boot.NewCardFunction(context.Background(), func(k string) string { return env[k] }, builtin.Registry(), io.Discard)
	require.NoError(t, err, "without push notifications, no signing key is needed")
	resp, err := boot.LambdaHTTP(h, nil)(context.Background(), loadEvent(t, "card-get.json"))
	require.NoError(t, err)
	assert.Contains(t, resp.Body, `"url":"https://agent.example.com"`)
	assert.Contains(t, resp.Body, `"pushNotifications":false`)

	_, err = boot.NewCardFunction(context.Background(), func(string) string { return "" }, builtin.Registry(), io.Discard)
	assert.ErrorContains(t, err, "A2A_PUSH_SIGNING_KEYS is required", "push notifications need a signing key")
	env = map[string]string{"A2A_PUSH_SIGNING_KEYS": "not PEM"}
	_, err = boot.NewCardFunction(context.Background(), func(k string) string { return env[k] }, builtin.Registry(), io.Discard)
	assert.ErrorContains(t, err, "A2A_PUSH_SIGNING_KEYS: ")

	env = map[string]string{"A2A_AGENT": "nope"}
	_, err = boot.NewCardFunction(context.Background(), func(k string) string { return env[k] }, builtin.Registry(), io.Discard)
	assert.ErrorContains(t, err, `A2A_AGENT="nope" is not a registered agent; choose one of: a2a-proxy, conformance, demo, echo, llm`)

	env = map[string]string{"A2A_PUBLIC_URL": "ftp://x"}
	_, err = boot.NewCardFunction(context.Background(), func(k string) string { return env[k] }, builtin.Registry(), io.Discard)
	assert.ErrorContains(t, err, "A2A_PUBLIC_URL")
}
