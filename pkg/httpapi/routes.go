package httpapi

import (
	"net/http"
	"strings"
	"sync"
)

// router is the handler's http.ServeMux with, in front of it, the routes
// whose pattern names one path (no wildcard, not a subtree): the card,
// the JSON-RPC and OAP endpoints, a send's REST route. A request for one
// is dispatched by two map lookups, where the ServeMux walks its tree of
// some forty patterns and builds the request's match (half a microsecond
// of a card request under load, a thirtieth of its cost). Anything else,
// and anything the mux would treat otherwise (a HEAD the mux serves with
// a GET route, an escaped path, a path it would clean or redirect), goes
// to the mux, which holds every route. The mux is built at the first
// request that needs it: registering its patterns was a tenth of a
// millisecond of every process's start-up, which a process whose requests
// all have one-path routes (the card function's) never needs.
type router struct {
	// exact holds, by method and path, the routes of one path.
	exact map[string]map[string]exactRoute
	// routes are every route, in order, for the mux.
	routes []exactRoute
	mux    func() *http.ServeMux
}

type exactRoute struct {
	// pattern is the route's pattern, as the mux sets it on the request
	// (logs name REST calls by it).
	pattern string
	h       http.Handler
}

func newRouter() *router {
	rt := &router{exact: map[string]map[string]exactRoute{}}
	rt.mux = sync.OnceValue(func() *http.ServeMux {
		mux := http.NewServeMux()
		for _, r := range rt.routes {
			mux.Handle(r.pattern, r.h)
		}
		return mux
	})
	return rt
}

// handle registers h for pattern with the mux and, when the pattern names
// one path, in front of it. Routes are registered before the first
// request.
func (rt *router) handle(pattern string, h http.Handler) {
	rt.routes = append(rt.routes, exactRoute{pattern: pattern, h: h})
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return // every method: the mux's
	}
	path, dollar := strings.CutSuffix(path, "{$}")
	if strings.Contains(path, "{") || (!dollar && strings.HasSuffix(path, "/")) {
		return // wildcards, or a subtree
	}
	if rt.exact[method] == nil {
		rt.exact[method] = map[string]exactRoute{}
	}
	rt.exact[method][path] = exactRoute{pattern: pattern, h: h}
}

func (rt *router) handleFunc(pattern string, h http.HandlerFunc) { rt.handle(pattern, h) }

// ServeHTTP serves r with its exact route, or through the mux.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// An escaped path (RawPath set) is left to the mux, which matches
	// segments as escaped: a %2F is no separator there.
	if e, ok := rt.exact[r.Method][r.URL.Path]; ok && r.URL.RawPath == "" {
		r.Pattern = e.pattern
		e.h.ServeHTTP(w, r)
		return
	}
	rt.mux().ServeHTTP(w, r)
}
