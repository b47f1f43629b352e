package apigw

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// CustomHostVariable names the environment variable that, when set, is
// the scheme and host of every request's URL in place of
// https://<the API's domain> (aws-lambda-go-api-proxy's GO_API_HOST).
const CustomHostVariable = "GO_API_HOST"

// NewHTTPRequest is the request ev stands for, as aws-lambda-go-api-proxy's
// RequestAccessorV2.EventToRequestWithContext makes it (TestNewHTTPRequest
// and FuzzNewHTTPRequest hold the two equal): the body decoded, the URL
// https://<domain><path>?<query>, the cookies as Cookie headers, each
// header but those that hold one value (Content-Type, Authorization...)
// split at its commas. Its context is ctx with ev's request context,
// which RequestContext returns.
//
// It does the proxy's work without its detours, which took a sixth of a
// message/send invocation: a map of the headers that hold one value and
// one of the others, each name put in canonical form twice, a copy of the
// request for its context.
func NewHTTPRequest(ctx context.Context, ev *events.APIGatewayV2HTTPRequest) (*http.Request, error) {
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, err
		}
		body = b
	}
	path := ev.RawPath
	if path == "" {
		path = ev.RequestContext.HTTP.Path
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	server := "https://" + ev.RequestContext.DomainName
	if custom, ok := os.LookupEnv(CustomHostVariable); ok {
		server = custom
	}
	target := server + path
	switch {
	case ev.RawQueryString != "":
		target += "?" + ev.RawQueryString
	case len(ev.QueryStringParameters) > 0:
		q := url.Values{}
		for k, v := range ev.QueryStringParameters {
			q.Add(k, v)
		}
		target += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, requestContextKey{}, &ev.RequestContext),
		strings.ToUpper(ev.RequestContext.HTTP.Method), target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.RemoteAddr = ev.RequestContext.HTTP.SourceIP
	h := req.Header
	for _, c := range ev.Cookies {
		h["Cookie"] = append(h["Cookie"], c)
	}
	for k, v := range ev.Headers {
		name := textproto.CanonicalMIMEHeaderKey(k)
		if oneValue[name] {
			h[name] = append(h[name], v)
			continue
		}
		for {
			item, rest, more := strings.Cut(v, ",")
			h[name] = append(h[name], strings.Trim(item, " "))
			if !more {
				break
			}
			v = rest
		}
	}
	req.RequestURI = req.URL.RequestURI()
	return req, nil
}

// oneValue are the headers that hold one value, which may have commas
// in it (the proxy's list: RFC 9110 names them so).
var oneValue = map[string]bool{
	"Content-Type": true, "Content-Disposition": true, "Content-Length": true, "User-Agent": true, "Referer": true,
	"Host": true, "Authorization": true, "Proxy-Authorization": true, "If-Modified-Since": true,
	"If-Unmodified-Since": true, "From": true, "Location": true, "Max-Forwards": true,
}

type requestContextKey struct{}

// RequestContext returns the API Gateway request context of a request
// NewHTTPRequest made (the route's authorizer, the caller's IP...), and
// false for any other.
func RequestContext(ctx context.Context) (events.APIGatewayV2HTTPRequestContext, bool) {
	rc, ok := ctx.Value(requestContextKey{}).(*events.APIGatewayV2HTTPRequestContext)
	if !ok {
		return events.APIGatewayV2HTTPRequestContext{}, false
	}
	return *rc, true
}
