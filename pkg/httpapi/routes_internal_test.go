package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRouterServesAsTheMux: whatever the request (every route's method and
// path, a HEAD for a GET route, a method no route has, an escaped or
// unclean path, a trailing slash, a subtree), the router answers as the
// ServeMux holding the same patterns alone: the same handler, the same
// pattern on the request, the same status and redirect; and it takes the
// one-path routes without the mux.
func TestRouterServesAsTheMux(t *testing.T) {
	patterns := []string{"GET " + cardPath, "GET " + cardPath03, "GET " + jwksPath, "POST /{$}", "POST /oap/v1", "GET /health", "GET /files/", "/"}
	for _, rt := range restRoutes {
		for _, base := range restBases() {
			patterns = append(patterns, rt.method+" "+base+rt.path)
		}
	}
	build := func() *router {
		r := newRouter()
		for _, p := range patterns {
			r.handleFunc(p, func(w http.ResponseWriter, req *http.Request) {
				w.Header().Set("X-Handler", p)
				w.Header().Set("X-Pattern", req.Pattern)
				w.Header().Set("X-Id", req.PathValue("id"))
			})
		}
		return r
	}
	rt := build()
	assert.Contains(t, rt.exact[http.MethodGet], cardPath)
	assert.Contains(t, rt.exact[http.MethodPost], "/")
	assert.Contains(t, rt.exact[http.MethodPost], "/rest/v1/message:send")
	assert.NotContains(t, rt.exact[http.MethodGet], "/files/", "a subtree is the mux's")
	assert.NotContains(t, rt.exact[http.MethodGet], "/rest/tasks/{id}")

	requests := [][2]string{
		{"GET", cardPath}, {"HEAD", cardPath}, {"POST", cardPath}, {"GET", cardPath + "/"}, {"GET", "/.well-known/agent-card%2Ejson"},
		{"GET", "/.well-known//agent-card.json"}, {"GET", "/.well-known/../.well-known/agent-card.json"},
		{"POST", "/"}, {"GET", "/"}, {"POST", "//"}, {"POST", "/oap/v1"}, {"GET", "/health"}, {"DELETE", "/health"},
		{"GET", "/files/a/b"}, {"GET", "/files"}, {"GET", "/nowhere"}, {"OPTIONS", "*"},
		{"POST", "/rest/v1/message:send"}, {"POST", "/rest/message:send"}, {"POST", "/rest%2Fv1/message:send"}, {"GET", "/rest/tasks"},
		{"GET", "/rest/tasks/t-1"}, {"GET", "/rest/v1/tasks/t%2F1"}, {"POST", "/rest/tasks/t-1:cancel"}, {"DELETE", "/rest/tasks/t-1/pushNotificationConfigs/c"},
	}
	mux := build().mux()
	for _, req := range requests {
		t.Run(req[0]+" "+req[1], func(t *testing.T) {
			serve := func(h http.Handler) *httptest.ResponseRecorder {
				w := httptest.NewRecorder()
				r := httptest.NewRequest(req[0], "http://agent.example.com"+req[1], nil)
				if req[1] == "*" {
					r.URL.Path, r.RequestURI = "*", "*"
				}
				h.ServeHTTP(w, r)
				return w
			}
			want, got := serve(mux), serve(rt)
			require.Equal(t, want.Code, got.Code)
			for _, h := range []string{"X-Handler", "X-Pattern", "X-Id", "Location", "Allow"} {
				assert.Equal(t, want.Header().Get(h), got.Header().Get(h), h)
			}
		})
	}
}

func BenchmarkRouter(b *testing.B) {
	rt := newRouter()
	for _, p := range []string{"GET " + cardPath, "GET " + cardPath03, "GET " + jwksPath, "POST /{$}", "GET /rest/tasks/{id}", "GET /rest/v1/tasks/{id}", "/"} {
		rt.handleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	for name, h := range map[string]http.Handler{"router": rt, "mux": rt.mux()} {
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, cardPath, nil)
			w := &discard{h: http.Header{}}
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
