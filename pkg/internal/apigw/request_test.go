package apigw

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertRequestAsProxy checks that NewHTTPRequest makes of ev the request
// aws-lambda-go-api-proxy makes (or fails where it fails), and that the
// request carries ev's request context.
func assertRequestAsProxy(t *testing.T, ev events.APIGatewayV2HTTPRequest) {
	t.Helper()
	ctx := context.Background()
	want, wantErr := (&core.RequestAccessorV2{}).EventToRequestWithContext(ctx, ev)
	got, err := NewHTTPRequest(ctx, &ev)
	if wantErr != nil {
		require.Error(t, err, "the proxy refuses the event: %v", wantErr)
		return
	}
	require.NoError(t, err)
	assert.Equal(t, want.Method, got.Method)
	assert.Equal(t, want.URL, got.URL)
	assert.Equal(t, want.Host, got.Host)
	assert.Equal(t, want.RequestURI, got.RequestURI)
	assert.Equal(t, want.RemoteAddr, got.RemoteAddr)
	assert.Equal(t, want.Proto, got.Proto)
	assert.Equal(t, want.ContentLength, got.ContentLength)
	assert.Equal(t, sortedValues(want.Header), sortedValues(got.Header), "headers")
	wantBody, err := io.ReadAll(want.Body)
	require.NoError(t, err)
	gotBody, err := io.ReadAll(got.Body)
	require.NoError(t, err)
	assert.Equal(t, wantBody, gotBody, "body")
	rc, ok := RequestContext(got.Context())
	require.True(t, ok, "the request context is kept")
	assert.Equal(t, ev.RequestContext, rc)
}

// sortedValues is h with each name's values sorted: the proxy adds the
// headers in map order, so names that differ in case only (not in events
// API Gateway sends) have their values in either order.
func sortedValues(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		out[k] = slices.Sorted(slices.Values(v))
	}
	return out
}

// Every sample event makes the request the proxy makes.
func TestNewHTTPRequestFromTheSampleEvents(t *testing.T) {
	for name, data := range httpEvents(t) {
		t.Run(name, func(t *testing.T) {
			var ev events.APIGatewayV2HTTPRequest
			require.NoError(t, json.Unmarshal(data, &ev))
			assertRequestAsProxy(t, ev)
		})
	}
}

func TestNewHTTPRequest(t *testing.T) {
	base := func() events.APIGatewayV2HTTPRequest {
		return events.APIGatewayV2HTTPRequest{RawPath: "/rest/tasks/t-1", RequestContext: events.APIGatewayV2HTTPRequestContext{
			DomainName: "abc.execute-api.eu-west-1.amazonaws.com", HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "get", Path: "/p", SourceIP: "203.0.113.9"}}}
	}
	tests := map[string]func(*events.APIGatewayV2HTTPRequest){
		"a plain get":              func(*events.APIGatewayV2HTTPRequest) {},
		"a path from the context":  func(ev *events.APIGatewayV2HTTPRequest) { ev.RawPath = "" },
		"a path without its slash": func(ev *events.APIGatewayV2HTTPRequest) { ev.RawPath = "x/y" },
		"an escaped path":          func(ev *events.APIGatewayV2HTTPRequest) { ev.RawPath = "/rest/tasks/a%2Fb%20c" },
		"a raw query":              func(ev *events.APIGatewayV2HTTPRequest) { ev.RawQueryString = "a=1&b=%20&a=2" },
		"query parameters only": func(ev *events.APIGatewayV2HTTPRequest) {
			ev.QueryStringParameters = map[string]string{"b": "2 3", "a": "1"}
		},
		"a body":                    func(ev *events.APIGatewayV2HTTPRequest) { ev.Body = `{"jsonrpc":"2.0"}` },
		"a base64 body":             func(ev *events.APIGatewayV2HTTPRequest) { ev.Body, ev.IsBase64Encoded = "aGVsbG8=", true },
		"a body that is not base64": func(ev *events.APIGatewayV2HTTPRequest) { ev.Body, ev.IsBase64Encoded = "%%%", true },
		"an invalid method":         func(ev *events.APIGatewayV2HTTPRequest) { ev.RequestContext.HTTP.Method = "G T" },
		"an invalid host":           func(ev *events.APIGatewayV2HTTPRequest) { ev.RequestContext.DomainName = "a b\x7f" },
		"cookies and a cookie header": func(ev *events.APIGatewayV2HTTPRequest) {
			ev.Cookies = []string{"a=1", "b=2"}
			ev.Headers = map[string]string{"cookie": "c=3"}
		},
		"headers of one value and of a list": func(ev *events.APIGatewayV2HTTPRequest) {
			ev.Headers = map[string]string{"content-type": "application/json; charset=utf-8", "authorization": "Bearer a,b",
				"user-agent": "x, y", "accept": "a/b, c/d ,e", "a2a-extensions": "https://e/1,https://e/2", "x-empty": "", "x-commas": ",, ,"}
		},
		"names that differ in case": func(ev *events.APIGatewayV2HTTPRequest) {
			ev.Headers = map[string]string{"Accept": "a", "accept": "b,c", "CONTENT-TYPE": "t", "content-type": "u"}
		},
		"a name that is not canonical": func(ev *events.APIGatewayV2HTTPRequest) {
			ev.Headers = map[string]string{"x y": "1", "ü": "2"}
		},
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			ev := base()
			edit(&ev)
			assertRequestAsProxy(t, ev)
		})
	}
	t.Run("a host of one's own", func(t *testing.T) {
		t.Setenv(CustomHostVariable, "http://localhost:3000")
		assertRequestAsProxy(t, base())
	})
}

func TestRequestContextOfAnotherRequest(t *testing.T) {
	_, ok := RequestContext(context.Background())
	assert.False(t, ok)
}

// NewHTTPRequest makes of any event the request the proxy makes.
func FuzzNewHTTPRequest(f *testing.F) {
	f.Add("/rest/tasks/t", "", "a=1", "GET", "d.example", "accept", "a, b", "c=1", "{}", false)
	f.Add("", "/p%2F", "", "post", "", "Content-Type", "a,b", "", "aGk=", true)
	f.Fuzz(func(t *testing.T, rawPath, ctxPath, query, method, domain, name, value, cookie, body string, b64 bool) {
		assertRequestAsProxy(t, events.APIGatewayV2HTTPRequest{RawPath: rawPath, RawQueryString: query, Cookies: []string{cookie},
			Headers: map[string]string{name: value, "x-" + name: value}, Body: body, IsBase64Encoded: b64,
			RequestContext: events.APIGatewayV2HTTPRequestContext{DomainName: domain, HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: ctxPath}}})
	})
}
