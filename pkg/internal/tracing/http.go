package tracing

import (
	"fmt"
	"net/http"
)

// Transport wraps rt so that each request is a span named by its host
// (namespace remote), with its method and status. The URL's path and query
// are not recorded: webhook URLs may hold secrets.
func Transport(rt http.RoundTripper) http.RoundTripper {
	return transport{rt}
}

type transport struct{ next http.RoundTripper }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, span := Start(r.Context(), r.URL.Hostname(), "remote")
	if span == nil {
		return t.next.RoundTrip(r)
	}
	span.SetOperation(r.Method)
	resp, err := t.next.RoundTrip(r.WithContext(ctx))
	if err == nil {
		span.SetStatus(resp.StatusCode)
		if resp.StatusCode >= 500 {
			span.End(fmt.Errorf("HTTP %d", resp.StatusCode))
			return resp, nil
		}
	}
	span.End(err)
	return resp, err
}
