package apigw

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// httpEvents are the repository's sample HTTP API events (events/), as
// sam local and the tests invoke the functions with them.
func httpEvents(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("../../../events/*/*.json")
	require.NoError(t, err)
	top, err := filepath.Glob("../../../events/*.json")
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, f := range append(files, top...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var probe struct {
			Version  string `json:"version"`
			RouteKey string `json:"routeKey"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.Version == "2.0" && probe.RouteKey != "" {
			out[filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)] = b
		}
	}
	require.GreaterOrEqual(t, len(out), 10, "the sample HTTP API events")
	return out
}

// assertSameAsEncodingJSON checks that DecodeRequest reads data as
// json.Unmarshal does: the same event, or an error where it fails.
func assertSameAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	var want, got events.APIGatewayV2HTTPRequest
	wantErr := json.Unmarshal(data, &want)
	gotErr := DecodeRequest(data, &got)
	if wantErr != nil {
		assert.Equal(t, wantErr.Error(), errorText(gotErr), "%q", data)
		return
	}
	require.NoError(t, gotErr, "%q", data)
	assert.Equal(t, want, got, "%q", data)
}

func errorText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// Every sample event is read without encoding/json, to what it reads.
func TestDecodeRequestReadsTheSampleEvents(t *testing.T) {
	for name, data := range httpEvents(t) {
		t.Run(name, func(t *testing.T) {
			var ev events.APIGatewayV2HTTPRequest
			assert.True(t, decode(data, &ev), "read without encoding/json")
			assertSameAsEncodingJSON(t, data)
			assert.NotEmpty(t, ev.RequestContext.HTTP.Method)
			assert.NotEmpty(t, ev.Headers)
		})
	}
}

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name string
		data string
		// fast: read without encoding/json; else encoding/json reads
		// it (and DecodeRequest answers what it does)
		fast bool
	}{
		{"empty object", `{}`, true},
		{"space around", " \n\t{ \"version\" : \"2.0\" } \r\n", true},
		{"every member", `{"version":"2.0","routeKey":"POST /","rawPath":"/","rawQueryString":"a=1","cookies":["c=1","d=2"],` +
			`"headers":{"content-type":"application/json"},"queryStringParameters":{"a":"1"},"pathParameters":{"id":"t-1"},` +
			`"requestContext":{"routeKey":"POST /","accountId":"123","stage":"$default","requestId":"r-1","apiId":"api",` +
			`"domainName":"api.example.com","domainPrefix":"api","time":"27/Nov/2026:10:00:00 +0000","timeEpoch":1795780800000,` +
			`"http":{"method":"POST","path":"/","protocol":"HTTP/1.1","sourceIp":"192.0.2.1","userAgent":"curl"}},` +
			`"stageVariables":{"s":"v"},"body":"{\"a\":1}","isBase64Encoded":true}`, true},
		{"escapes in values", `{"body":"line\n\"quoted\"\\ \u00e9 \ud83d\ude00 \/"}`, true},
		{"UTF-8 in values", `{"body":"é 😀","headers":{"x-name":"Zoë"}}`, true},
		{"nulls leave members as they are", `{"version":null,"isBase64Encoded":null,"requestContext":null,"body":null}`, true},
		{"null maps and lists", `{"headers":null,"cookies":null,"pathParameters":null}`, true},
		{"null items", `{"headers":{"a":null},"cookies":[null,"x"]}`, true},
		{"empty maps and lists", `{"headers":{},"cookies":[]}`, true},
		{"a map given twice adds to the first", `{"headers":{"a":"1"},"headers":{"b":"2"}}`, true},
		{"a map then null", `{"headers":{"a":"1"},"headers":null}`, true},
		{"the context given twice", `{"requestContext":{"stage":"a","requestId":"r"},"requestContext":{"stage":"b"}}`, true},
		{"unknown members of every kind", `{"x":{"y":[1,-2.5e+3,true,false,null,"s",{}]},"requestContext":{"z":[[]],"http":{"w":0}},"v":"\u0041"}`, true},
		{"an authorizer", `{"requestContext":{"authorizer":{"jwt":{"claims":{"sub":"u"},"scopes":["a"]},"lambda":{"k":1}}}}`, true},
		{"authentication", `{"requestContext":{"authentication":{"clientCert":{"clientCertPem":"p","validity":{"notAfter":"x"}}}}}`, true},
		{"a negative epoch", `{"requestContext":{"timeEpoch":-5}}`, true},

		{"a key in another case", `{"Body":"x","body":"y"}`, false},
		{"a key folded by Unicode", `{"K\u212A":"x","\u212Aey":1,"rawPath":"/"}`, false},
		{"an escaped key", `{"b\u006fdy":"x"}`, false},
		{"a list given twice", `{"cookies":["a"],"cookies":[null]}`, false},
		{"invalid UTF-8", "{\"body\":\"a\xffb\"}", true},
		{"a fraction for the epoch", `{"requestContext":{"timeEpoch":1.5}}`, false},
		{"an epoch too large", `{"requestContext":{"timeEpoch":99999999999999999999}}`, false},
		{"a number for a string", `{"body":1}`, false},
		{"a string for a bool", `{"isBase64Encoded":"true"}`, false},
		{"a number in a map", `{"headers":{"a":1}}`, false},
		{"a list for a map", `{"headers":["a"]}`, false},
		{"an authorizer of the wrong shape", `{"requestContext":{"authorizer":{"jwt":{"claims":1}}}}`, false},
		{"an array", `[]`, false},
		{"a string", `"x"`, false},
		{"null", `null`, false},
		{"nothing", ``, false},
		{"trailing data", `{} {}`, false},
		{"a trailing comma", `{"body":"x",}`, false},
		{"a missing colon", `{"body" "x"}`, false},
		{"an unclosed object", `{"body":"x"`, false},
		{"an unclosed string", `{"body":"x}`, false},
		{"a control character", "{\"body\":\"a\tb\"}", false},
		{"a bad escape", `{"body":"\x"}`, false},
		{"a short unicode escape", `{"body":"\u12"}`, false},
		{"a bad number", `{"x":01}`, false},
		{"a bare minus", `{"x":-}`, false},
		{"a bad literal", `{"x":nul}`, false},
		{"a bad fraction", `{"x":1.}`, false},
		{"a bad exponent", `{"x":1e}`, false},
		{"nested deeper than the bound", `{"x":` + strings.Repeat("[", jsonread.MaxDepth+1) + strings.Repeat("]", jsonread.MaxDepth+1) + `}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev events.APIGatewayV2HTTPRequest
			assert.Equal(t, tt.fast, decode([]byte(tt.data), &ev), "read without encoding/json")
			assertSameAsEncodingJSON(t, []byte(tt.data))
		})
	}
}

// assertResponseAsEncodingJSON checks that AppendResponse writes the
// members encoding/json writes, with the same values.
func assertResponseAsEncodingJSON(t *testing.T, r events.APIGatewayV2HTTPResponse) {
	t.Helper()
	want, err := json.Marshal(r)
	require.NoError(t, err)
	got := AppendResponse(nil, &r)
	require.True(t, json.Valid(got), "%s", got)
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	assert.Equal(t, w, g, "%s", got)
	var back events.APIGatewayV2HTTPResponse
	require.NoError(t, json.Unmarshal(got, &back))
	assert.Equal(t, r.StatusCode, back.StatusCode)
}

func TestAppendResponse(t *testing.T) {
	tests := []struct {
		name string
		r    events.APIGatewayV2HTTPResponse
	}{
		{"empty", events.APIGatewayV2HTTPResponse{}},
		{"an answer", events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "application/json", "A2A-Version": "1.0", "Vary": "A2A-Version"},
			Body: `{"jsonrpc":"2.0","id":1,"result":{"id":"t-1"}}`}},
		{"base64 and cookies", events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: "aGk=", IsBase64Encoded: true, Cookies: []string{"a=1", "b=2"}}},
		{"multi-value headers", events.APIGatewayV2HTTPResponse{StatusCode: 204, MultiValueHeaders: map[string][]string{"Set-Cookie": {"a", "b"}, "X-Empty": nil, "X-None": {}}}},
		{"empty maps and lists", events.APIGatewayV2HTTPResponse{StatusCode: 500, Headers: map[string]string{}, MultiValueHeaders: map[string][]string{}, Cookies: []string{}}},
		{"strings to escape", events.APIGatewayV2HTTPResponse{StatusCode: 400, Headers: map[string]string{"X-\"q\"": "a\nb\u2028<&>"}, Body: "\x00\x1f\"\\é 😀 \xff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertResponseAsEncodingJSON(t, tt.r) })
	}
}

// Header names are written in order: the same response, the same bytes.
func TestAppendResponseIsStable(t *testing.T) {
	r := events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"c": "3", "a": "1", "b": "2", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8", "i": "9"}}
	want := string(AppendResponse(nil, &r))
	assert.Contains(t, want, `"headers":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9"}`)
	for range 20 {
		assert.Equal(t, want, string(AppendResponse(nil, &r)))
	}
}

func BenchmarkDecodeRequest(b *testing.B) {
	data := httpEvents(b)["send/jsonrpc-message-send.json"]
	require.NotNil(b, data)
	b.Run("apigw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var ev events.APIGatewayV2HTTPRequest
			if err := DecodeRequest(data, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(data, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkAppendResponse(b *testing.B) {
	r := events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "application/json", "A2A-Version": "1.0", "Vary": "A2A-Version"},
		Body: strings.Repeat("x", 600)}
	b.Run("apigw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			AppendResponse(make([]byte, 0, len(r.Body)+256), &r)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Invoke answers each sample event as aws-lambda-go's handler of the same
// function answers it (the same members, the same values), and fails the
// invocation on an event it cannot read or an error of the function.
func TestHandlerInvoke(t *testing.T) {
	echo := func(_ context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		if ev.RawPath == "/fail" {
			return events.APIGatewayV2HTTPResponse{}, errors.New("the function failed")
		}
		return events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "application/json", "X-Method": ev.RequestContext.HTTP.Method},
			Cookies: ev.Cookies, Body: ev.Body, IsBase64Encoded: ev.IsBase64Encoded}, nil
	}
	ours, theirs := Handler(echo), lambda.NewHandler(echo)
	ctx := context.Background()
	for name, data := range httpEvents(t) {
		t.Run(name, func(t *testing.T) {
			want, err := theirs.Invoke(ctx, data)
			require.NoError(t, err)
			got, err := ours.Invoke(ctx, data)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
	_, err := ours.Invoke(ctx, []byte(`{"body":1}`))
	assert.EqualError(t, err, "read the API Gateway event: json: cannot unmarshal number into Go struct field APIGatewayV2HTTPRequest.body of type string")
	_, err = ours.Invoke(ctx, []byte(`{"rawPath":"/fail"}`))
	assert.EqualError(t, err, "the function failed")
}
