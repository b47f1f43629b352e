package app

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// guardLoopback protects a local server that runs without authentication
// from the web pages its developer visits. A page cannot read an answer
// from another origin, but it can send a "simple" cross-site POST, and
// through DNS rebinding (its own name resolving to 127.0.0.1) it can read
// answers too. So the server only answers requests addressed to a loopback
// name (the Host header: localhost, a loopback address, or the host of
// A2A_PUBLIC_URL), and refuses every request a browser marks as coming
// from a page of another host (the Origin header). curl and other clients
// send no Origin and the Host they dialled, so they are not affected. A
// request that repeats either header is refused: which of the two counts
// is what a browser, a proxy and this server could disagree on (net/http
// already refuses a repeated Host). The pages of the origins the operator
// allowed by name (A2A_CORS_ALLOWED_ORIGINS; "*" names none) are served
// too: that list is the operator's choice to let them drive the server.
func guardLoopback(next http.Handler, publicURL string, corsOrigins []string) http.Handler {
	listed := map[string]bool{}
	for _, o := range corsOrigins {
		listed[o] = o != "*"
	}
	allowed := map[string]bool{}
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		allowed[strings.ToLower(u.Hostname())] = true
	}
	local := func(host string) bool {
		host = strings.ToLower(strings.TrimSuffix(host, "."))
		if host == "localhost" || strings.HasSuffix(host, ".localhost") || allowed[host] {
			return true
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		return ip != nil && ip.IsLoopback()
	}
	// lastLocal is the Host header last found local: the next request
	// of a client names the same, and is let through by one comparison.
	var lastLocal atomic.Pointer[string]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The header's own keys: net/http canonicalizes what it reads.
		for _, name := range []string{"Host", "Origin"} {
			if len(r.Header[name]) > 1 {
				refuse(w, "the request has more than one "+name+" header: this server runs without authentication and serves only requests that name one")
				return
			}
		}
		if last := lastLocal.Load(); last == nil || *last != r.Host {
			if !local(hostOnly(r.Host)) {
				refuse(w, "the Host header "+quote(r.Host)+" is not a loopback name: this server runs without authentication and answers only requests addressed to localhost, 127.0.0.1, [::1] or A2A_PUBLIC_URL's host (set A2A_BEARER_TOKEN to serve other names)")
				return
			}
			host := r.Host
			lastLocal.Store(&host)
		}
		if origin := r.Header.Get("Origin"); origin != "" && !listed[strings.ToLower(origin)] {
			u, err := url.Parse(origin)
			if err != nil || u.Host == "" || !local(u.Hostname()) {
				refuse(w, "requests from web pages of other sites (Origin "+quote(origin)+") are refused: this server runs without authentication (set A2A_BEARER_TOKEN to accept them)")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
}

// refuse answers 403 with a JSON body that says why.
func refuse(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	b := []byte(`{"error":{"code":"FORBIDDEN","message":`)
	b = jsonw.String(b, msg)
	b = append(b, "}}\n"...)
	_, _ = w.Write(b)
}
