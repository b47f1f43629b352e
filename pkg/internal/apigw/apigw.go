// Package apigw reads the event an API Gateway HTTP API (payload format
// 2.0) hands a Lambda function and writes the response it takes back,
// without reflection: aws-lambda-go decodes a typed handler's event with
// encoding/json, which took 14 µs of CPU (70 allocations) for a 1.5 KB
// message/send event, more than a quarter of the whole invocation.
//
// DecodeRequest gives what encoding/json.Unmarshal gives, for every input:
// it reads the shapes API Gateway sends and hands any other (a key in
// another case or escaped, a number where a string goes, a member given
// twice, invalid JSON) to encoding/json itself, whose result and error are
// then the answer. FuzzDecodeRequest holds the two equal.
package apigw

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	p := parser{b: data, text: string(data)}
	p.space()
	if p.peek() != '{' || !p.object(func(key string) bool { return requestMember(&p, ev, key) }) {
		return false
	}
	p.space()
	return p.i == len(data)
}

// requestMember reads the value of the event's member key. false: the
// event is encoding/json's to read.
func requestMember(p *parser, ev *events.APIGatewayV2HTTPRequest, key string) bool {
	switch key {
	case "version":
		return p.str(&ev.Version)
	case "routeKey":
		return p.str(&ev.RouteKey)
	case "rawPath":
		return p.str(&ev.RawPath)
	case "rawQueryString":
		return p.str(&ev.RawQueryString)
	case "cookies":
		return p.strings(&ev.Cookies)
	case "headers":
		return p.stringMap(&ev.Headers)
	case "queryStringParameters":
		return p.stringMap(&ev.QueryStringParameters)
	case "pathParameters":
		return p.stringMap(&ev.PathParameters)
	case "stageVariables":
		return p.stringMap(&ev.StageVariables)
	case "body":
		return p.str(&ev.Body)
	case "isBase64Encoded":
		return p.boolean(&ev.IsBase64Encoded)
	case "requestContext":
		if p.null() {
			return true
		}
		rc := &ev.RequestContext
		return p.peek() == '{' && p.object(func(key string) bool { return contextMember(p, rc, key) })
	}
	return p.unknown(key, requestFields)
}

func contextMember(p *parser, rc *events.APIGatewayV2HTTPRequestContext, key string) bool {
	switch key {
	case "routeKey":
		return p.str(&rc.RouteKey)
	case "accountId":
		return p.str(&rc.AccountID)
	case "stage":
		return p.str(&rc.Stage)
	case "requestId":
		return p.str(&rc.RequestID)
	case "apiId":
		return p.str(&rc.APIID)
	case "domainName":
		return p.str(&rc.DomainName)
	case "domainPrefix":
		return p.str(&rc.DomainPrefix)
	case "time":
		return p.str(&rc.Time)
	case "timeEpoch":
		return p.int64(&rc.TimeEpoch)
	case "http":
		if p.null() {
			return true
		}
		h := &rc.HTTP
		return p.peek() == '{' && p.object(func(key string) bool { return httpMember(p, h, key) })
	case "authorizer":
		// Only behind an authorizer, and of many shapes (JWT claims, a
		// Lambda authorizer's context, IAM): encoding/json's to read.
		return p.delegate(&rc.Authorizer)
	case "authentication":
		return p.delegate(&rc.Authentication)
	}
	return p.unknown(key, contextFields)
}

func httpMember(p *parser, h *events.APIGatewayV2HTTPRequestContextHTTPDescription, key string) bool {
	switch key {
	case "method":
		return p.str(&h.Method)
	case "path":
		return p.str(&h.Path)
	case "protocol":
		return p.str(&h.Protocol)
	case "sourceIp":
		return p.str(&h.SourceIP)
	case "userAgent":
		return p.str(&h.UserAgent)
	}
	return p.unknown(key, httpFields)
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
	b = append(b, `,"headers":`...)
	if r.Headers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		var names [16]string
		for i, k := range sortedKeys(names[:0], r.Headers) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.String(append(jsonw.String(b, k), ':'), r.Headers[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"multiValueHeaders":`...)
	if r.MultiValueHeaders == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		var names [16]string
		for i, k := range sortedKeys(names[:0], r.MultiValueHeaders) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStrings(append(jsonw.String(b, k), ':'), r.MultiValueHeaders[k])
		}
		b = append(b, '}')
	}
	b = jsonw.String(append(b, `,"body":`...), r.Body)
	if r.IsBase64Encoded {
		b = append(b, `,"isBase64Encoded":true`...)
	}
	b = appendStrings(append(b, `,"cookies":`...), r.Cookies)
	return append(b, '}')
}

// sortedKeys appends the keys of m to keys, in order.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	keys = slices.AppendSeq(keys, maps.Keys(m))
	slices.Sort(keys)
	return keys
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

// parser reads JSON from b at i. Each method reads one value, the shape
// its Go type is given by encoding/json, and returns false, its position
// then unspecified, on anything else: invalid JSON, another shape, or
// what encoding/json would read differently from a plain reading (an
// escaped key, a list or map given twice).
type parser struct {
	b []byte
	i int
	// text is b as a string, made once: the event's strings are parts
	// of it, not one allocation each.
	text string
}

// maxDepth bounds the nesting of the values skipped; deeper ones are
// encoding/json's (which has a bound of its own).
const maxDepth = 100

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the byte at i, 0 at the end.
func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// object reads an object at i, calling member with each key (a part of
// text: an escaped key fails) with i at its value.
func (p *parser) object(member func(key string) bool) bool {
	p.i++ // {
	p.space()
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		if p.peek() != '"' {
			return false
		}
		start := p.i
		plain, ok := p.skipString()
		if !ok || !plain {
			return false
		}
		key := p.text[start+1 : p.i-1]
		p.space()
		if p.peek() != ':' {
			return false
		}
		p.i++
		p.space()
		if !member(key) {
			return false
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
			p.space()
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// unknown skips the value of a member that is none of fields, and fails
// for a key encoding/json would take as one of them (case ignored).
func (p *parser) unknown(key string, fields []string) bool {
	for _, f := range fields {
		if strings.EqualFold(key, f) {
			return false
		}
	}
	return p.skip(0)
}

// null reads null at i, if it is there.
func (p *parser) null() bool {
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// str reads a string into s; null leaves s as it is.
func (p *parser) str(s *string) bool {
	if p.null() {
		return true
	}
	v, ok := p.stringValue()
	if ok {
		*s = v
	}
	return ok
}

// stringValue reads a string at i.
func (p *parser) stringValue() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	start := p.i
	plain, ok := p.skipString()
	if !ok {
		return "", false
	}
	if plain {
		return p.text[start+1 : p.i-1], true
	}
	return jsonread.Unquote(p.b[start+1 : p.i-1]), true
}

// strings reads a list of strings into l (null: nil; a null item: "").
// A list given twice fails: encoding/json fills the first one's array.
func (p *parser) strings(l *[]string) bool {
	if *l != nil {
		return false
	}
	if p.null() {
		return true
	}
	if p.peek() != '[' {
		return false
	}
	p.i++
	p.space()
	out := []string{}
	if p.peek() == ']' {
		p.i++
		*l = out
		return true
	}
	for {
		var s string
		if !p.str(&s) {
			return false
		}
		out = append(out, s)
		p.space()
		switch p.peek() {
		case ',':
			p.i++
			p.space()
		case ']':
			p.i++
			*l = out
			return true
		default:
			return false
		}
	}
}

// stringMap reads an object of strings into m (null: nil; a null value:
// ""). An object given twice adds to the first one's map, as encoding/json
// does.
func (p *parser) stringMap(m *map[string]string) bool {
	if p.null() {
		*m = nil
		return true
	}
	if p.peek() != '{' {
		return false
	}
	if *m == nil {
		*m = map[string]string{}
	}
	out := *m
	return p.object(func(key string) bool {
		var s string
		if !p.str(&s) {
			return false
		}
		out[key] = s
		return true
	})
}

// boolean reads true or false into v; null leaves v as it is.
func (p *parser) boolean(v *bool) bool {
	switch {
	case p.null():
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		*v = true
		p.i += 4
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		*v = false
		p.i += 5
	default:
		return false
	}
	return true
}

// int64 reads an integer into v; null leaves v as it is.
func (p *parser) int64(v *int64) bool {
	if p.null() {
		return true
	}
	start := p.i
	if !p.skipNumber() {
		return false
	}
	n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	if err != nil {
		return false // a fraction, an exponent, too large: encoding/json's
	}
	*v = n
	return true
}

// delegate has encoding/json read the value at i into v.
func (p *parser) delegate(v any) bool {
	start := p.i
	return p.skip(0) && json.Unmarshal(p.b[start:p.i], v) == nil
}

// skip reads past any valid JSON value at i.
func (p *parser) skip(depth int) bool {
	switch c := p.peek(); {
	case c == '"':
		_, ok := p.skipString()
		return ok
	case c == '{' || c == '[':
		if depth == maxDepth {
			return false
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		p.i++
		p.space()
		if p.peek() == closing {
			p.i++
			return true
		}
		for {
			if c == '{' {
				if _, ok := p.skipString(); !ok {
					return false
				}
				if p.space(); p.peek() != ':' {
					return false
				}
				p.i++
				p.space()
			}
			if !p.skip(depth + 1) {
				return false
			}
			p.space()
			switch p.peek() {
			case ',':
				p.i++
				p.space()
			case closing:
				p.i++
				return true
			default:
				return false
			}
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	}
	return p.skipNumber()
}

func (p *parser) literal(lit string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	return true
}

// skipString reads past the string at i. plain: it has no escape and
// only ASCII, or valid UTF-8, so its bytes are its value.
func (p *parser) skipString() (plain, ok bool) {
	if p.peek() != '"' {
		return false, false
	}
	start := p.i + 1
	ascii, escaped := true, false
	for p.i++; p.i < len(p.b); p.i++ {
		for p.i < len(p.b) && !stringSpecial[p.b[p.i]] {
			p.i++
		}
		if p.i == len(p.b) {
			break
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return !escaped && (ascii || utf8.Valid(p.b[start:p.i-1])), true
		case c == '\\':
			escaped = true
			if !p.skipEscape() {
				return false, false
			}
		case c < 0x20:
			return false, false
		case c >= 0x80:
			ascii = false
		}
	}
	return false, false
}

// stringSpecial are the bytes skipString looks at: the end of a string,
// an escape, a control character (invalid in a string) and the bytes of
// runes beyond ASCII.
var stringSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// skipEscape checks the escape at i (a backslash) and leaves i at its
// last byte.
func (p *parser) skipEscape() bool {
	if p.i+1 >= len(p.b) {
		return false
	}
	p.i++
	switch p.b[p.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if p.i+4 >= len(p.b) {
			return false
		}
		for _, h := range p.b[p.i+1 : p.i+5] {
			if !isHex(h) {
				return false
			}
		}
		p.i += 4
		return true
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipNumber reads past a number at i, as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) skipNumber() bool {
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case '1' <= c && c <= '9':
		p.digits()
	default:
		return false
	}
	if p.peek() == '.' {
		p.i++
		if !p.digits() {
			return false
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return false
		}
	}
	return true
}

// digits reads past one digit or more.
func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
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
