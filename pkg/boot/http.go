package boot

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/apigw"
)

// HTTPFunc is the handler of a Lambda behind an API Gateway HTTP API
// (payload format 2.0).
type HTTPFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// LambdaHTTP adapts an http.Handler to an HTTP API Lambda handler. When the
// adapter fails (a handler that wrote no status, say) or the response
// would exceed Lambda's limit (httpapi answers that in the protocol's
// shape before; this is the last guard), it logs the failure as JSON on
// log and answers a JSON 500 itself: Lambda would otherwise fail the
// invocation and API Gateway answer a bare 500.
func LambdaHTTP(h http.Handler, log *slog.Logger) HTTPFunc {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	// What api-proxy's httpadapter.ProxyWithContext does, without its
	// plain-text log line, with apigw's request and response writer in
	// place of its own: the proxy's conversion of the event took a sixth
	// of a message/send invocation, and its writer copies the body twice.
	proxy := func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		req, err := apigw.NewHTTPRequest(ctx, &ev)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("convert the event to a request: %w", err)
		}
		w := apigw.NewResponseWriter()
		h.ServeHTTP(w, req)
		// API Gateway states the length of what it sends; the one the
		// handler gave for net/http (httpapi) would only be copied into
		// the event.
		delete(w.Header(), "Content-Length")
		return w.Response()
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		resp, err := proxy(ctx, ev)
		if err != nil {
			log.ErrorContext(ctx, "the HTTP adapter failed", "route", ev.RouteKey, "path", ev.RawPath, "error", err.Error())
			return adapterError("INTERNAL", "internal error; the server logged the cause"), nil
		}
		size := len(resp.Body) + 2
		if !resp.IsBase64Encoded && !ResponseFits(len(resp.Body), MaxResponseBytes) {
			size = ResponseSize([]byte(resp.Body))
		}
		if size > MaxResponseBytes {
			log.ErrorContext(ctx, "the response is too large for Lambda", "route", ev.RouteKey, "path", ev.RawPath, "status", resp.StatusCode, "bytes", size)
			return adapterError("INTERNAL", fmt.Sprintf("the response would take %d bytes, above AWS Lambda's limit of 6 MB: ask for less", size)), nil
		}
		return resp, nil
	}
}

// APIGatewayRequestContext returns the API Gateway request context of a
// request LambdaHTTP serves (the route's authorizer and the claims it
// verified, the caller's IP...), and false outside one.
func APIGatewayRequestContext(ctx context.Context) (events.APIGatewayV2HTTPRequestContext, bool) {
	return apigw.RequestContext(ctx)
}

// adapterError is a google.rpc.Status 500 response, as httpapi's own.
func adapterError(status, message string) events.APIGatewayV2HTTPResponse {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": http.StatusInternalServerError, "status": status, "message": message}})
	return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusInternalServerError, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(b)}
}
