package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/oap"
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
var (
	// CORSAllowedMethods are the methods a preflight allows.
	CORSAllowedMethods = []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions}
	// CORSAllowedHeaders are the request headers a preflight allows: the
	// credential, the body's type, the protocol version, the extensions
	// asked for (1.0 and 0.3 names) and the OAP correlation headers.
	CORSAllowedHeaders = append([]string{"Authorization", "Content-Type", "A2A-Version", "A2A-Extensions", "X-A2A-Extensions"}, oap.Headers...)
	// CORSExposedHeaders are the response headers a page may read beyond
	// the safelisted ones: the authentication challenge, the cards' ETag
	// and the OAP correlation headers echoed.
	CORSExposedHeaders = append([]string{"WWW-Authenticate", "ETag"}, oap.Headers...)
)

// CORSMaxAge is how long, in seconds, a browser may cache a preflight's
// answer.
const CORSMaxAge = 600

// corsPolicy answers preflights and marks the answers to allowed origins.
type corsPolicy struct {
	// any: every origin is allowed ("*").
	any     bool
	origins map[string]bool
	// The preflight's header values, joined once.
	methods, headers, exposed, maxAge string
}

// newCORS returns the policy of the allowed origins (normalized, see
// config); none allows no origin, and preflights are refused with a
// message that says how to allow one.
func newCORS(origins []string) *corsPolicy {
	c := &corsPolicy{origins: map[string]bool{},
		methods: strings.Join(CORSAllowedMethods, ", "), headers: strings.Join(CORSAllowedHeaders, ", "),
		exposed: strings.Join(CORSExposedHeaders, ", "), maxAge: strconv.Itoa(CORSMaxAge)}
	for _, o := range origins {
		if o == "*" {
			c.any = true
		}
		c.origins[strings.ToLower(o)] = true
	}
	return c
}

// serve handles the CORS part of a request and reports whether it
// answered it: a preflight (OPTIONS with Access-Control-Request-Method),
// on any path, is answered here, 204 for an allowed origin and 403
// otherwise; any other request from an allowed origin gets the headers
// that let its page read the answer, and goes on.
func (c *corsPolicy) serve(w http.ResponseWriter, r *http.Request) bool {
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if len(c.origins) == 0 && !preflight {
		return false // the common case: CORS is off
	}
	hdr := w.Header()
	if !c.any {
		// The answer depends on the Origin: caches must know.
		hdr.Add("Vary", "Origin")
	}
	origins := r.Header.Values("Origin")
	allowed := len(origins) == 1 && (c.any || c.origins[strings.ToLower(origins[0])])
	if !allowed {
		if preflight {
			writeHTTPError(w, http.StatusForbidden, "PERMISSION_DENIED", c.refusal(origins))
		}
		return preflight
	}
	if c.any {
		hdr.Set("Access-Control-Allow-Origin", "*")
	} else {
		hdr.Set("Access-Control-Allow-Origin", origins[0])
	}
	if !preflight {
		hdr.Set("Access-Control-Expose-Headers", c.exposed)
		return false
	}
	hdr.Set("Access-Control-Allow-Methods", c.methods)
	hdr.Set("Access-Control-Allow-Headers", c.headers)
	hdr.Set("Access-Control-Max-Age", c.maxAge)
	w.WriteHeader(http.StatusNoContent)
	return true
}

// refusal says why a preflight was refused.
func (c *corsPolicy) refusal(origins []string) string {
	switch {
	case len(origins) == 0:
		return "a CORS preflight needs an Origin header"
	case len(origins) > 1:
		return "a CORS preflight must have exactly one Origin header"
	case len(c.origins) == 0:
		return "cross-origin requests are not enabled on this agent: its operator lists the web origins that may call it in A2A_CORS_ALLOWED_ORIGINS (the stack's CorsAllowedOrigins)"
	}
	o := origins[0]
	if len(o) > 200 {
		o = o[:200] + "..."
	}
	return "the origin " + strconv.Quote(o) + " may not call this agent: it is not in A2A_CORS_ALLOWED_ORIGINS"
}
