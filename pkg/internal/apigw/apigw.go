// Package apigw reads the event an API Gateway HTTP API (payload format
// 2.0) hands a Lambda function and writes the response it takes back,
// without reflection: aws-lambda-go decodes a typed handler's event with
// encoding/json, which took 13.4 µs of CPU and 64 allocations for a 1.5 KB
// message/send event, more than a quarter of the whole invocation.
//
// DecodeRequest gives what encoding/json.Unmarshal gives, for every input:
// it reads the shapes API Gateway sends and hands any other (a key in
// another case or escaped, a number where a string goes, a member given
// twice, invalid JSON) to encoding/json itself, whose result and error are
// then the answer. FuzzDecodeRequest holds the two equal.
//
// Between the two, NewHTTPRequest makes the *http.Request an event stands
// for and ResponseWriter keeps what the handler writes, as
// aws-lambda-go-api-proxy's do, for boot.LambdaHTTP.
package apigw

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// DecodeRequest decodes data, an HTTP API event, into ev, as
// json.Unmarshal(data, ev) does into a zero ev.
func DecodeRequest(data []byte, ev *events.APIGatewayV2HTTPRequest) error {
	if decode(data, ev) {
		return nil
	}
	*ev = events.APIGatewayV2HTTPRequest{}
	return json.Unmarshal(data, ev)
}

// decode reads data into ev, or returns false (ev then partly written) for
// encoding/json to read it.
func decode(data []byte, ev *events.APIGatewayV2HTTPRequest) bool {
	p := jsonread.NewParser(data)
	return p.Document(func(key string) bool { return requestMember(&p, ev, key) })
}

// requestMember reads the value of the event's member key. false: the
// event is encoding/json's to read.
func requestMember(p *jsonread.Parser, ev *events.APIGatewayV2HTTPRequest, key string) bool {
	switch key {
	case "version":
		return p.Str(&ev.Version)
	case "routeKey":
		return p.Str(&ev.RouteKey)
	case "rawPath":
		return p.Str(&ev.RawPath)
	case "rawQueryString":
		return p.Str(&ev.RawQueryString)
	case "cookies":
		return p.Strings(&ev.Cookies)
	case "headers":
		return p.StringMap(&ev.Headers)
	case "queryStringParameters":
		return p.StringMap(&ev.QueryStringParameters)
	case "pathParameters":
		return p.StringMap(&ev.PathParameters)
	case "stageVariables":
		return p.StringMap(&ev.StageVariables)
	case "body":
		return p.Str(&ev.Body)
	case "isBase64Encoded":
		return p.Bool(&ev.IsBase64Encoded)
	case "requestContext":
		if p.Null() {
			return true
		}
		rc := &ev.RequestContext
		return p.Object(func(key string) bool { return contextMember(p, rc, key) })
	}
	return p.Unknown(key, requestFields)
}

func contextMember(p *jsonread.Parser, rc *events.APIGatewayV2HTTPRequestContext, key string) bool {
	switch key {
	case "routeKey":
		return p.Str(&rc.RouteKey)
	case "accountId":
		return p.Str(&rc.AccountID)
	case "stage":
		return p.Str(&rc.Stage)
	case "requestId":
		return p.Str(&rc.RequestID)
	case "apiId":
		return p.Str(&rc.APIID)
	case "domainName":
		return p.Str(&rc.DomainName)
	case "domainPrefix":
		return p.Str(&rc.DomainPrefix)
	case "time":
		return p.Str(&rc.Time)
	case "timeEpoch":
		return p.Int64(&rc.TimeEpoch)
	case "http":
		if p.Null() {
			return true
		}
		h := &rc.HTTP
		return p.Object(func(key string) bool { return httpMember(p, h, key) })
	case "authorizer":
		// Only behind an authorizer, and of many shapes (JWT claims, a
		// Lambda authorizer's context, IAM): encoding/json's to read.
		return p.Delegate(&rc.Authorizer)
	case "authentication":
		return p.Delegate(&rc.Authentication)
	}
	return p.Unknown(key, contextFields)
}

func httpMember(p *jsonread.Parser, h *events.APIGatewayV2HTTPRequestContextHTTPDescription, key string) bool {
	switch key {
	case "method":
		return p.Str(&h.Method)
	case "path":
		return p.Str(&h.Path)
	case "protocol":
		return p.Str(&h.Protocol)
	case "sourceIp":
		return p.Str(&h.SourceIP)
	case "userAgent":
		return p.Str(&h.UserAgent)
	}
	return p.Unknown(key, httpFields)
}

// The JSON names of the members of each object read: encoding/json also
// takes a key that matches one of them with case ignored.
var (
	requestFields = []string{"version", "routeKey", "rawPath", "rawQueryString", "cookies", "headers",
		"queryStringParameters", "pathParameters", "requestContext", "stageVariables", "body", "isBase64Encoded"}
	contextFields = []string{"routeKey", "accountId", "stage", "requestId", "authorizer", "apiId", "domainName",
		"domainPrefix", "time", "timeEpoch", "http", "authentication"}
	httpFields = []string{"method", "path", "protocol", "sourceIp", "userAgent"}
)

// AppendResponse appends r as JSON, the members encoding/json writes for
// it: statusCode, headers, multiValueHeaders, body, isBase64Encoded when
// true, and cookies; a nil map or list is null. Header names are in
// order.
func AppendResponse(b []byte, r *events.APIGatewayV2HTTPResponse) []byte {
	b = append(b, `{"statusCode":`...)
	b = strconv.AppendInt(b, int64(r.StatusCode), 10)
	b = appendObject(append(b, `,"headers":`...), r.Headers, jsonw.String)
	b = appendObject(append(b, `,"multiValueHeaders":`...), r.MultiValueHeaders, appendStrings)
	b = jsonw.String(append(b, `,"body":`...), r.Body)
	if r.IsBase64Encoded {
		b = append(b, `,"isBase64Encoded":true`...)
	}
	b = appendStrings(append(b, `,"cookies":`...), r.Cookies)
	return append(b, '}')
}

// appendObject appends m as a JSON object, its names in order and each
// value written by value; null when m is nil.
func appendObject[V any](b []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var names [16]string
	keys := slices.AppendSeq(names[:0], maps.Keys(m))
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = value(append(jsonw.String(b, k), ':'), m[k])
	}
	return append(b, '}')
}

// appendStrings appends vs as a JSON array, null when nil.
func appendStrings(b []byte, vs []string) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, v)
	}
	return append(b, ']')
}

// Handler is an HTTP API function's handler. Its Invoke makes it a
// lambda.Handler that reads the event and writes the response with
// DecodeRequest and AppendResponse, where aws-lambda-go would use
// reflection and encoding/json for a typed handler.
type Handler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Invoke runs h with the event payload holds and returns its response as
// JSON; an event that cannot be read, or an error of h, fails the
// invocation.
func (h Handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var ev events.APIGatewayV2HTTPRequest
	if err := DecodeRequest(payload, &ev); err != nil {
		return nil, fmt.Errorf("read the API Gateway event: %w", err)
	}
	resp, err := h(ctx, ev)
	if err != nil {
		return nil, err
	}
	return AppendResponse(make([]byte, 0, len(resp.Body)+responseOverhead), &resp), nil
}

// responseOverhead is room enough for a response's members but its body.
const responseOverhead = 512
