package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The llm agent on Amazon Bedrock, served by the local server as `make
// run` serves it, from its settings alone: A2A_LLM_PROVIDER=bedrock, the
// model id, AWS_REGION and the environment's credentials, with
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME pointing at a Converse endpoint on
// loopback. A blocking send completes with the model's text and its usage
// in the task's metadata; a model the request may not choose is refused,
// and Bedrock is not called for it.
func TestLocalServerAnswersWithBedrock(t *testing.T) {
	const model = "anthropic.claude-3-haiku-20240307-v1:0"
	var (
		mu    sync.Mutex
		paths []string
	)
	converse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.EscapedPath()+" "+strconv.FormatBool(strings.Contains(r.Header.Get("Authorization"), "/us-east-1/bedrock/aws4_request")))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[{"text":"Bonjour from Bedrock."}]}},"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":5,"totalTokens":8}}`)
	}))
	t.Cleanup(converse.Close) // after the server's shutdown (runLocal)

	srv := runLocal(t, map[string]string{
		"A2A_AGENT": "llm", "A2A_LLM_PROVIDER": "bedrock", "A2A_LLM_MODEL": model,
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": converse.URL,
	})

	type task struct {
		Status struct {
			State   string
			Message struct{ Parts []struct{ Text string } }
		}
		Metadata map[string]map[string]any
	}
	send := func(id, metadata string) task {
		body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"` + id +
			`","parts":[{"kind":"text","text":"Say hello in French."}]},"configuration":{"blocking":true}` + metadata + `}}`
		resp, err := srv.client.Post(srv.base, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var rpc struct{ Result task }
		require.NoError(t, json.Unmarshal(b, &rpc), string(b))
		return rpc.Result
	}

	got := send("m1", "")
	require.Equal(t, "completed", got.Status.State)
	assert.Equal(t, "Bonjour from Bedrock.", got.Status.Message.Parts[0].Text)
	assert.Equal(t, map[string]any{"input_tokens": 3.0, "output_tokens": 5.0, "total_tokens": 8.0}, got.Metadata["shared"]["usage"])
	assert.Equal(t, []string{"POST /model/anthropic.claude-3-haiku-20240307-v1%3A0/converse true"}, paths)

	got = send("m2", `,"metadata":{"shared":{"model":{"providerID":"bedrock","modelID":"anthropic.claude-3-opus-20240229-v1:0"}}}`)
	assert.Equal(t, "rejected", got.Status.State)
	assert.Equal(t, `Model "anthropic.claude-3-opus-20240229-v1:0" is not allowed here: this agent answers with `+model+` only (A2A_LLM_ALLOWED_MODELS lists the models a request may choose).`,
		got.Status.Message.Parts[0].Text)
	assert.Len(t, paths, 1, "Bedrock was not called for the refused model")
}
