package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The AWS SDK's own Bedrock Runtime client is the judge of the provider's
// wire format (it links into no binary: only this test uses it). Both
// clients send the same conversation to a fake endpoint: the requests
// must agree (method, escaped path, content type, JSON body, credential
// scope) and both be validly signed; then both read the same answers and
// errors, and must agree on the text, the usage and the exception.
func TestBedrockWireMatchesTheSDK(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "session"}
	type got struct {
		method, path, contentType, scope string
		body                             any
	}
	var answer struct {
		status int
		header map[string]string
		body   string
	}
	var requests []got
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body any
		require.NoError(t, json.Unmarshal(b, &body))
		auth := r.Header.Get("Authorization")
		scope := auth[strings.Index(auth, "/")+1 : strings.Index(auth, ",")]
		requests = append(requests, got{r.Method, r.URL.EscapedPath(), r.Header.Get("Content-Type"), scope, body})
		assert.Equal(t, auth, resign(t, r, b, creds), "the request's signature is valid")
		for k, v := range answer.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(answer.status)
		_, _ = io.WriteString(w, answer.body)
	}))
	defer hs.Close()

	sdk := bedrockruntime.New(bedrockruntime.Options{
		Region: "eu-central-1", BaseEndpoint: aws.String(hs.URL), Retryer: aws.NopRetryer{},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
	})
	ours, err := newBedrock(Bedrock{Region: "eu-central-1", EndpointURL: hs.URL,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })}, 64, &http.Client{})
	require.NoError(t, err)

	model := "arn:aws:bedrock:eu-central-1:123456789012:inference-profile/eu.anthropic.claude-3-haiku-20240307-v1:0"
	text := func(s string) []types.ContentBlock {
		return []types.ContentBlock{&types.ContentBlockMemberText{Value: s}}
	}
	input := &bedrockruntime.ConverseInput{
		ModelId: aws.String(model),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "Be brief."}},
		Messages: []types.Message{
			{Role: types.ConversationRoleUser, Content: text("Hi")},
			{Role: types.ConversationRoleAssistant, Content: text("Hello! Ask away.")},
			{Role: types.ConversationRoleUser, Content: text("Capital of France?")},
		},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(64)},
	}
	msgs := []chatMessage{{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello! Ask away."}, {"user", "Capital of France?"}}

	answer.status, answer.body = 200, `{"output":{"message":{"role":"assistant","content":[{"text":"Paris."}]}},"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":5,"totalTokens":8},"metrics":{"latencyMs":120}}`
	out, err := sdk.Converse(context.Background(), input)
	require.NoError(t, err)
	a, _, err := ours.call(context.Background(), model, msgs)
	require.NoError(t, err)
	require.Len(t, requests, 2)
	assert.Equal(t, requests[0], requests[1], "the SDK's request, then ours")
	assert.Equal(t, "/model/arn%3Aaws%3Abedrock%3Aeu-central-1%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-3-haiku-20240307-v1%3A0/converse", requests[1].path)
	assert.Contains(t, requests[1].scope, "/eu-central-1/bedrock/aws4_request")
	sdkText := out.Output.(*types.ConverseOutputMemberMessage).Value.Content[0].(*types.ContentBlockMemberText).Value
	assert.Equal(t, sdkText, a.text)
	assert.Equal(t, chatUsage{PromptTokens: int(*out.Usage.InputTokens), CompletionTokens: int(*out.Usage.OutputTokens), TotalTokens: int(*out.Usage.TotalTokens)}, a.usage)

	for _, tc := range []struct {
		status    int
		header    map[string]string
		body      string
		retryable bool
	}{
		{429, map[string]string{"X-Amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}, `{"message":"Too many requests"}`, true},
		{400, nil, `{"__type":"com.amazon.bedrock#ValidationException","message":"Malformed input request"}`, false},
		{404, nil, `{"code":"ResourceNotFoundException","Message":"Model not found"}`, false},
		{424, map[string]string{"X-Amzn-ErrorType": "ModelErrorException"}, `{"message":"The model failed","originalStatusCode":500}`, false},
		{503, map[string]string{"X-Amzn-ErrorType": "ServiceUnavailableException"}, `{"message":"Try again"}`, true},
	} {
		answer.status, answer.header, answer.body = tc.status, tc.header, tc.body
		_, err := sdk.Converse(context.Background(), input)
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "%v", err)
		_, _, ourErr := ours.call(context.Background(), model, msgs)
		var ue *upstreamError
		require.True(t, errors.As(ourErr, &ue), "%v", ourErr)
		assert.Contains(t, ue.message, api.ErrorCode(), "the SDK reads %s", api.ErrorCode())
		assert.Contains(t, ue.message, api.ErrorMessage())
		assert.Equal(t, tc.retryable, ue.retryable, api.ErrorCode())
	}
}

// resign signs again, with the same credentials and time, the request r
// (with body b) as it arrived, restricted to the headers it says it
// signed: the Authorization header a valid signature has.
func resign(t *testing.T, r *http.Request, b []byte, creds aws.Credentials) string {
	t.Helper()
	auth := r.Header.Get("Authorization")
	i := strings.Index(auth, "SignedHeaders=")
	signed := strings.Split(auth[i+len("SignedHeaders="):strings.Index(auth[i:], ",")+i], ";")
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	require.NoError(t, err)
	req, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.EscapedPath(), bytes.NewReader(b))
	require.NoError(t, err)
	req.URL.RawPath = r.URL.EscapedPath()
	for _, h := range signed {
		if h != "host" {
			req.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(b)
	scope := strings.Split(auth[strings.Index(auth, "/")+1:strings.Index(auth, ",")], "/")
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), scope[2], scope[1], when))
	return req.Header.Get("Authorization")
}
