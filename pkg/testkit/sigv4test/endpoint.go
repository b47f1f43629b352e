package sigv4test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

// Request is what a JSONEndpoint saw of one call.
type Request struct {
	Method, Path, ContentType string
	// Target is the X-Amz-Target header (Service.Operation).
	Target string
	// Scope is the credential scope without its date:
	// region/service/aws4_request.
	Scope string
	// Token is the X-Amz-Security-Token header.
	Token string
	// Body is the request's JSON, decoded.
	Body any
}

// JSONEndpoint is a fake endpoint of an API on an AWS JSON protocol: it
// verifies each request's signature, records the request in Got, and
// answers every call with Status, Answer and, when set, ErrorType as the
// X-Amzn-ErrorType header. Calls are made one at a time.
type JSONEndpoint struct {
	URL       string
	Got       []Request
	Status    int
	ErrorType string
	Answer    string
}

// NewJSONEndpoint starts an endpoint that answers 200 {} and expects
// requests signed with creds; it stops with the test.
func NewJSONEndpoint(t *testing.T, creds aws.Credentials) *JSONEndpoint {
	e := &JSONEndpoint{Status: http.StatusOK, Answer: `{}`}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body any
		require.NoError(t, json.Unmarshal(b, &body))
		Verify(t, r, b, creds, false)
		e.Got = append(e.Got, Request{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"),
			Target: r.Header.Get("X-Amz-Target"), Scope: Scope(r)[len("yyyymmdd/"):], Token: r.Header.Get("X-Amz-Security-Token"), Body: body})
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		if e.ErrorType != "" {
			w.Header().Set("X-Amzn-ErrorType", e.ErrorType)
		}
		w.WriteHeader(e.Status)
		io.WriteString(w, e.Answer)
	}))
	t.Cleanup(hs.Close)
	e.URL = hs.URL
	return e
}

// Refusal is an API's refusal a JSONEndpoint answers with: Status, Body and,
// when set, ErrorType as the X-Amzn-ErrorType header; Code is the code the
// client must read from it.
type Refusal struct {
	Name, ErrorType, Body string
	Status                int
	Code                  string
}

// AssertRefusalsTyped answers each of calls (by operation name) with each
// refusal and checks that the call fails with an *awscall.Error of the
// refusal's code, status and a message, its text starting with prefix and
// the operation ("sqs SendMessage: ..."). It leaves the endpoint answering
// the last refusal.
func (e *JSONEndpoint) AssertRefusalsTyped(t *testing.T, prefix string, calls map[string]func() error, refusals []Refusal) {
	t.Helper()
	for op, call := range calls {
		for _, r := range refusals {
			t.Run(op+" "+r.Name, func(t *testing.T) {
				e.Status, e.ErrorType, e.Answer = r.Status, r.ErrorType, r.Body
				err := call()
				var ae *awscall.Error
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, r.Code, ae.Code)
				assert.Equal(t, r.Status, ae.StatusCode)
				assert.NotEmpty(t, ae.Message)
				assert.Contains(t, err.Error(), prefix+" "+op+": ")
				assert.True(t, awscall.Refused(err, "Other", r.Code))
				assert.False(t, awscall.Refused(err, "Other"))
			})
		}
	}
}
