package httpapi

import (
	"net/http"
	"strings"
)

// Cross-origin requests (CORS), for A2A clients that run in a browser.
// The web origins allowed to call the agent are configured
// (A2A_CORS_ALLOWED_ORIGINS, none by default); the template gives API
// Gateway the same origins and the lists below, so that a deployed stack
// (where API Gateway answers preflights itself) and the local server or
// `sam local` (where this handler does) answer alike.
//
// No answer ever carries Access-Control-Allow-Credentials: callers prove
// who they are with the Authorization header, which a page sends without
// the browser's credentials mode, and this server reads no cookie. So an
// allowed origin, even "*", never lets a page act with the browser's own
// credentials.
const (
	// CORSAllowedMethods are the methods a preflight allows.
	CORSAllowedMethods = "GET, POST, DELETE, OPTIONS"
	// CORSAllowedHeaders are the request headers a preflight allows: the
	// credential, the body's type, the protocol version, the extensions
	// asked for (1.0 and 0.3 names) and the OAP correlation headers
	// (oap.Headers).
	CORSAllowedHeaders = "Authorization, Content-Type, A2A-Version, A2A-Extensions, X-A2A-Extensions, Orch-Id, Orch-Caller, Orch-Module-Id, Orch-Session-Id"
	// CORSExposedHeaders are the response headers a page may read beyond
	// the safelisted ones: the authentication challenge, the cards' ETag
	// and the OAP correlation headers echoed.
	CORSExposedHeaders = "WWW-Authenticate, ETag, Orch-Id, Orch-Caller, Orch-Module-Id, Orch-Session-Id"
	// CORSMaxAge is how long, in seconds, a browser may cache a
	// preflight's answer.
	CORSMaxAge = "600"
)

// The headers of a preflight's answer and of an answer to an allowed
// origin, shared by every answer (net/http does not change them).
var (
	corsPreflight = http.Header{
		"Access-Control-Allow-Methods": {CORSAllowedMethods},
		"Access-Control-Allow-Headers": {CORSAllowedHeaders},
		"Access-Control-Max-Age":       {CORSMaxAge},
	}
	corsExposed = []string{CORSExposedHeaders}
	corsAny     = []string{"*"}
)

// corsPolicy is the allowed origins, lower case ("*": any).
type corsPolicy map[string]bool

// serve handles the CORS part of a request and reports whether it
// answered it: a preflight (OPTIONS with Access-Control-Request-Method),
// on any path, is answered here, 204 for an allowed origin and 403
// otherwise; any other request from an allowed origin gets the headers
// that let its page read the answer, and goes on.
func (c corsPolicy) serve(w http.ResponseWriter, r *http.Request) bool {
	preflight := r.Method == http.MethodOptions && len(r.Header["Access-Control-Request-Method"]) > 0
	if len(c) == 0 && !preflight {
		return false // the common case: CORS is off
	}
	hdr, any := w.Header(), c["*"]
	if !any {
		// The answer depends on the Origin: caches must know.
		hdr["Vary"] = append(hdr["Vary"], "Origin")
	}
	origins := r.Header["Origin"]
	if len(origins) != 1 || !(any || c[strings.ToLower(origins[0])]) {
		if preflight {
			writeHTTPError(w, http.StatusForbidden, "PERMISSION_DENIED", "CORS preflight refused: its one Origin header must name an origin of A2A_CORS_ALLOWED_ORIGINS (the stack's CorsAllowedOrigins), which lists the web origins whose pages may call this agent")
		}
		return preflight
	}
	if any {
		hdr["Access-Control-Allow-Origin"] = corsAny
	} else {
		hdr["Access-Control-Allow-Origin"] = origins
	}
	if !preflight {
		hdr["Access-Control-Expose-Headers"] = corsExposed
		return false
	}
	for k, v := range corsPreflight {
		hdr[k] = v
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

// newCORS returns the policy of the allowed origins (normalized, see
// config); none allows no origin.
func newCORS(origins []string) corsPolicy {
	c := corsPolicy{}
	for _, o := range origins {
		c[strings.ToLower(o)] = true
	}
	return c
}
