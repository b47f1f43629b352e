// Package httpapi is the HTTP edge of the server: one http.Handler that
// serves JSON-RPC on POST /, the HTTP+JSON (REST) binding under /rest, OAP
// envelopes on POST /orchestrate, the agent cards under /.well-known/ and
// the deployment profile on GET /health, with authentication, a request
// body limit, gzip of large responses and the mapping of errors to the
// wire, done once here.
//
// A2A 0.3 and 1.0 are served side by side: each A2A route decides the
// request's version once, from A2A-Version (wire.go), and hands its
// handler the version's wire (method table, body codecs, error framing);
// handlers never test the version.
//
// Locally the handler is mounted on net/http; in Lambda each HTTP function
// wraps it (or the route groups it owns) with boot.LambdaHTTP.
package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/oap"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// Service is what the edge needs of the A2A operations.
type Service interface {
	// Send answers message/send: the task, or the agent's direct Message.
	Send(ctx context.Context, owner string, p a2a.MessageSendParams) (a2a.SendResult, error)
	GetTask(ctx context.Context, owner string, p a2a.TaskQueryParams) (*a2a.Task, error)
	CancelTask(ctx context.Context, owner string, p a2a.TaskIDParams) (*a2a.Task, error)
	ListTasks(ctx context.Context, owner string, p a2a.ListTasksParams) (*a2a.ListTasksResult, error)
	ReplyPermission(ctx context.Context, owner string, p a2a.PermissionReplyParams) (*a2a.InterruptReplyResult, error)
	ReplyQuestion(ctx context.Context, owner string, p a2a.QuestionReplyParams) (*a2a.InterruptReplyResult, error)
	RejectQuestion(ctx context.Context, owner string, p a2a.QuestionRejectParams) (*a2a.InterruptReplyResult, error)
	ListInterrupts(ctx context.Context, owner string, p a2a.ListInterruptsParams) (*a2a.ListInterruptsResult, error)
	SetPushConfig(ctx context.Context, owner string, protocol a2a.Version, p a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error)
	GetPushConfig(ctx context.Context, owner string, p a2a.GetTaskPushNotificationConfigParams) (*a2a.TaskPushNotificationConfig, error)
	ListPushConfigs(ctx context.Context, owner string, p a2a.ListTaskPushNotificationConfigParams) ([]a2a.TaskPushNotificationConfig, error)
	DeletePushConfig(ctx context.Context, owner string, p a2a.DeleteTaskPushNotificationConfigParams) error
	Feedback(ctx context.Context, owner string, p a2a.TaskFeedbackParams) (*a2a.OKResult, error)
	ListContexts(ctx context.Context, owner string, p a2a.ListContextsParams) (*a2a.ListContextsResult, error)
	ClearContext(ctx context.Context, owner string, p a2a.ClearContextParams) (*a2a.OKResult, error)
	ListDeliveries(ctx context.Context, owner string, p a2a.ListDeliveriesParams) (*a2a.ListDeliveriesResult, error)
	RedriveDeliveries(ctx context.Context, owner string, p a2a.RedriveDeliveriesParams) (*a2a.RedriveDeliveriesResult, error)
	// CreateUpload answers files/createUpload.
	CreateUpload(ctx context.Context, owner string, p a2a.FileUploadParams) (*a2a.FileUploadResult, error)
}

// Authenticator identifies the caller of a request, or returns an error
// (the request is answered 401).
type Authenticator interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// Routes selects route groups, so that each Lambda function serves only the
// routes it owns.
type Routes uint8

// Route groups.
const (
	// RoutesCard: the public cards and the JWKS (GET /.well-known/...).
	RoutesCard Routes = 1 << iota
	// RoutesRPC: JSON-RPC (POST /), OAP envelopes (POST /orchestrate) and
	// REST message:send.
	RoutesRPC
	// RoutesTasks: REST task routes (get, list, cancel, push configs) and
	// the extended card.
	RoutesTasks
	// RoutesAll serves everything (the local server).
	RoutesAll = RoutesCard | RoutesRPC | RoutesTasks
)

// Options configure the handler.
type Options struct {
	// Service is required unless Routes is RoutesCard.
	Service Service
	// Auth is required unless Routes is RoutesCard.
	Auth Authenticator
	// Cards builds the public and extended cards for a base URL.
	Cards CardSource
	// PublicURL is the base URL advertised in cards; empty derives it from
	// each request (Host and X-Forwarded-Proto).
	PublicURL string
	// MaxBodyBytes bounds request bodies (413 above it); zero is
	// config.DefaultMaxRequestBodyBytes.
	MaxBodyBytes int64
	// Routes selects the route groups; zero means RoutesAll.
	Routes Routes
	// GzipMinimumSize is the smallest response body (JSON-RPC results,
	// REST results, cards) sent gzip-compressed to clients that accept it;
	// 0 means config.DefaultGzipMinimumSize, negative turns compression off.
	GzipMinimumSize int
	// Profile is the deployment profile GET /health answers with
	// (authenticated, with the task routes); nil serves no /health.
	Profile *Profile
	// Versions are the A2A versions served; empty means both (0.3 and
	// 1.0). A request of another version is refused with
	// VersionNotSupported, and with 0.3 not served the public card is a
	// pure 1.0 card (a2av1.Card).
	Versions []a2a.Version
	// JWKS, when set, serves the push notification verification keys at
	// /.well-known/jwks.json with the cards (*keys.Set implements it).
	JWKS http.Handler
	// MaxResponseBytes bounds a result as the transport carries it
	// (ResponseSize): a larger one is answered with a typed error in the
	// binding's shape (JSON-RPC error, REST 400, OAP error envelope) that
	// says how to ask for less. 0 means no limit (the local server); the
	// Lambda functions set AWS Lambda's 6 MB.
	MaxResponseBytes int
	// ResponseSize is how many bytes a response body (as written, maybe
	// gzip-compressed) takes in the transport, at most 6 per byte and 2
	// (what JSON's escapes and quotes take: smaller bodies are not
	// measured); nil means its length.
	ResponseSize func(body []byte) int
	// CORSAllowedOrigins are the web origins whose pages may call the
	// agent (scheme://host[:port], lower case; "*" allows any), see
	// cors.go. Empty allows none: preflights are answered 403.
	CORSAllowedOrigins []string
	// RateLimit is each caller's request budget on the A2A routes and
	// /health; its zero value sets none.
	RateLimit RateLimit
	Logger    *slog.Logger
}

type handler struct {
	svc     Service
	auth    Authenticator
	maxBody int64
	log     *slog.Logger
	cards   *cards
	// gzipMin is the smallest body compressed (negative: none).
	gzipMin int
	// maxResponse and responseSize: see Options.MaxResponseBytes.
	maxResponse  int
	responseSize func([]byte) int
	// v03 and v10 are the wires of the protocol versions (see negotiate).
	v03, v10 *wire
	// serves03 and serves10 say which versions are served (Options.Versions).
	serves03, serves10 bool
	// served names the served versions in errors ("0.3", "1.0" or
	// "0.3,1.0").
	served string
	// limit keeps the callers' budgets; nil when there are none.
	limit  *limiter
	routes *router
	cors   corsPolicy
	// answers recycles the buffers answers are encoded into: a buffer is
	// free again once its answer is written, since ResponseWriter.Write,
	// as every io.Writer, keeps nothing of what it is given (a new 1 KB
	// buffer per request was a tenth of what a task's get allocated).
	// Above 64 KiB a rare large answer's is left to the collector.
	answers jsonw.Buffers
	// caller is the last caller's hash for the logs (most requests come
	// from the caller before them), so that a request hashes its owner
	// only when the caller changes.
	caller atomic.Pointer[callerHash]
}

// callerHash is logfields.CallerHash(owner).
type callerHash struct{ owner, hash string }

// callerHash returns logfields.CallerHash(owner).
func (h *handler) callerHash(owner string) string {
	if c := h.caller.Load(); c != nil && c.owner == owner {
		return c.hash
	}
	c := &callerHash{owner: owner, hash: logfields.CallerHash(owner)}
	h.caller.Store(c)
	return c.hash
}

// New returns the handler.
func New(o Options) (http.Handler, error) {
	if o.Routes == 0 {
		o.Routes = RoutesAll
	}
	if o.Routes&^RoutesCard != 0 && (o.Service == nil || o.Auth == nil) {
		return nil, errors.New("httpapi: Service and Auth are required for RPC and task routes")
	}
	o.MaxBodyBytes = positive.Or(o.MaxBodyBytes, config.DefaultMaxRequestBodyBytes)
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	if o.Cards == nil {
		return nil, errors.New("httpapi: Cards is required")
	}
	if o.GzipMinimumSize == 0 {
		o.GzipMinimumSize = config.DefaultGzipMinimumSize
	}
	if o.ResponseSize == nil {
		o.ResponseSize = func(b []byte) int { return len(b) }
	}
	h := &handler{answers: jsonw.Buffers{Max: 64 << 10}, svc: o.Service, auth: o.Auth, maxBody: o.MaxBodyBytes, log: o.Logger, gzipMin: o.GzipMinimumSize, routes: newRouter(),
		maxResponse: o.MaxResponseBytes, responseSize: o.ResponseSize, limit: newLimiter(o.RateLimit), cors: newCORS(o.CORSAllowedOrigins)}
	if len(o.Versions) == 0 {
		o.Versions = a2a.Versions
	}
	h.v03, h.v10 = h.newWire03(), h.newWire10()
	h.serves03, h.serves10 = slices.Contains(o.Versions, a2a.V03), slices.Contains(o.Versions, a2a.V10)
	var served []string
	for _, v := range a2a.Versions {
		if slices.Contains(o.Versions, v) {
			served = append(served, string(v))
		}
	}
	if len(served) == 0 {
		return nil, fmt.Errorf("httpapi: Versions %v names no served version (0.3, 1.0)", o.Versions)
	}
	h.served = strings.Join(served, ",")
	cs, err := newCards(o.Cards, o.PublicURL, h.gzipMin, h.serves03, func(pub, ext *a2a.AgentCard) {
		ext.Capabilities.Extensions = append(ext.Capabilities.Extensions, h.wireContract(pub))
	})
	if err != nil {
		return nil, err
	}
	h.cards = cs

	if o.Routes&RoutesCard != 0 {
		h.routes.handleFunc("GET "+cardPath, h.serveCard)
		h.routes.handleFunc("GET "+cardPath03, h.serveCard)
		if o.JWKS != nil {
			h.routes.handle("GET "+jwksPath, o.JWKS)
		}
	}
	for _, rt := range restRoutes {
		if o.Routes&rt.group == 0 {
			continue
		}
		for _, base := range restBases() {
			h.routes.handleFunc(rt.method+" "+base+rt.path, h.a2aRoute(bindingREST, func(w http.ResponseWriter, r *http.Request, c call) { rt.serve(h, w, r, c) }))
		}
	}
	if o.Routes&RoutesRPC != 0 {
		h.routes.handleFunc("POST /{$}", h.a2aRoute(bindingJSONRPC, h.serveJSONRPC))
		h.routes.handleFunc("POST "+oap.Path, h.a2aRoute(bindingOAP, h.serveOAP))
	}
	if o.Routes&RoutesTasks != 0 {
		if o.Profile != nil {
			// Rendered at its first request: a start-up would spend a tenth
			// of a millisecond on a document few ask for.
			p := *o.Profile
			profile := sync.OnceValues(func() (*document, error) { return newDocument(&p, h.gzipMin) })
			h.routes.handleFunc("GET /health", h.authenticated(func(w http.ResponseWriter, r *http.Request, _ auth.Identity) {
				d, err := profile()
				if err != nil {
					writeRESTError(w, h.protocolError(r.Context(), err, "deployment profile"))
					return
				}
				d.serveFresh(w, r)
			}))
		}
	}
	h.routes.handleFunc("/", h.notFound)
	return h, nil
}

// restRoute is one route of the REST binding, relative to each REST base.
type restRoute struct {
	group        Routes
	method, path string
	serve        func(*handler, http.ResponseWriter, *http.Request, call)
	// only, when set, is the one version whose specification names the
	// route (the other version's clients may call it too).
	only a2a.Version
	// actions are the custom methods a {id} route serves as {id}:<action>.
	actions []string
	// extension marks a route of an extension, not of the A2A binding.
	extension bool
}

// Documents returns the paths of the documents the handler serves to
// anyone: the public agent card at its name and at its 0.3 name, and the
// push notifications' JWKS. Their requests add no log fields (a middleware
// may spare them the field bag, as telemetry.Middleware's plain paths do).
func Documents() []string { return []string{cardPath, cardPath03, jwksPath} }

// CardPaths returns the paths of the public agent card: its name and its
// 0.3 name.
func CardPaths() []string { return []string{cardPath, cardPath03} }

const (
	cardPath   = "/.well-known/agent-card.json"
	cardPath03 = "/.well-known/agent.json"
	jwksPath   = "/.well-known/jwks.json"
)

// restRoutes are the REST binding's routes: the mux serves them, and the
// wire contract (contract.go) lists them.
var restRoutes = []restRoute{
	{group: RoutesRPC, method: "POST", path: "/message:send", serve: (*handler).restSend},
	{group: RoutesRPC, method: "POST", path: "/message:stream", serve: (*handler).restUnsupportedStream},
	{group: RoutesTasks, method: "GET", path: "/tasks", serve: (*handler).restList},
	{group: RoutesTasks, method: "GET", path: "/tasks/{id}", serve: (*handler).restGet},
	{group: RoutesTasks, method: "POST", path: "/tasks/{id}", actions: []string{"cancel", "subscribe"}, serve: (*handler).restTaskAction},
	{group: RoutesTasks, method: "POST", path: "/tasks/{id}/pushNotificationConfigs", serve: (*handler).restSetPushConfig},
	{group: RoutesTasks, method: "GET", path: "/tasks/{id}/pushNotificationConfigs", serve: (*handler).restListPushConfigs},
	{group: RoutesTasks, method: "GET", path: "/tasks/{id}/pushNotificationConfigs/{configId}", serve: (*handler).restGetPushConfig},
	{group: RoutesTasks, method: "DELETE", path: "/tasks/{id}/pushNotificationConfigs/{configId}", serve: (*handler).restDeletePushConfig},
	{group: RoutesTasks, method: "GET", path: "/card", only: a2a.V03, serve: (*handler).restExtendedCard},
	{group: RoutesTasks, method: "GET", path: "/extendedAgentCard", only: a2a.V10, serve: (*handler).restExtendedCard},
	{group: RoutesTasks, method: "GET", path: "/tasks/{id}/deliveries", extension: true, serve: (*handler).restListDeliveries},
	{group: RoutesTasks, method: "POST", path: "/tasks/{id}/deliveries:redrive", extension: true, serve: (*handler).restRedriveDeliveries},
	{group: RoutesRPC, method: "POST", path: "/files", extension: true, serve: (*handler).restCreateUpload},
}

// restBases are the prefixes of the REST binding: the 0.3 spec's /v1 form,
// and the form without /v1 of A2A 1.0 (which some 0.3 clients call too).
// The request's A2A-Version, not its path, decides the wire format. The
// mux holds each route at both: mapping one form to the other before the
// mux would save start-up a few patterns (tens of microseconds) and cost
// every request in that form a copy of the request and its URL.
func restBases() []string { return []string{card.RESTPath + "/v1", card.RESTPath} }

// ServeHTTP routes the request. A panic below is a bug: it is logged with
// its stack and answered 500 rather than taking the process (a Lambda
// runtime) down.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.ErrorContext(r.Context(), "panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			writeHTTPError(w, http.StatusInternalServerError, "INTERNAL", "internal error; the server logged the cause")
		}
	}()
	if h.cors.serve(w, r) {
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, card.RESTPath+"/"); ok {
		if p, ok := stripTenant(rest); ok {
			r2 := *r
			u := *r.URL
			u.Path, u.RawPath = card.RESTPath+"/"+p, ""
			r2.URL = &u
			r = &r2
		}
	}
	h.routes.ServeHTTP(w, r)
}

// restHeads are the first path segments of the REST routes.
var restHeads = map[string]bool{"v1": true, "tasks": true, "message:send": true, "message:stream": true, "extendedAgentCard": true, "card": true, "files": true}

// stripTenant removes the optional /{tenant} segment of A2A 1.0 REST paths
// (/rest/{tenant}/tasks/...), which this single-tenant host accepts and
// ignores: path, relative to the REST base, loses its first segment when
// that segment is no route's own and the next one starts a route. So
// /rest/tasks/tasks is still the task named "tasks".
func stripTenant(path string) (string, bool) {
	seg, tail, ok := strings.Cut(path, "/")
	if !ok || seg == "" || restHeads[seg] {
		return "", false
	}
	next, _, _ := strings.Cut(tail, "/")
	if next == "v1" || !restHeads[next] {
		return "", false
	}
	return tail, true
}

// binding names the framing of a route's answers, for the errors that
// come before its handler (an unsupported A2A-Version).
type binding uint8

const (
	bindingJSONRPC binding = iota
	bindingREST
	bindingOAP
)

// a2aRoute serves an A2A route: it decides the protocol version (an
// unsupported A2A-Version is refused before anything else), then
// authenticates the caller, spends one request of its budget (429
// otherwise, see RateLimit; the budget of its source address when it is
// not authenticated), answers 401 when it is not, and hands next the call.
func (h *handler) a2aRoute(b binding, next func(http.ResponseWriter, *http.Request, call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		wr, err := h.negotiate(r)
		if err != nil {
			h.versionError(w, r, b, err)
			return
		}
		id, ok := h.identify(w, r, b, wr)
		if !ok {
			return
		}
		logfields.AddAttrs(r.Context(), slog.String(logfields.FieldCaller, h.callerHash(id.Owner)), slog.String(logfields.FieldVersion, string(wr.version)),
			slog.String(logfields.FieldMethod, r.Pattern))
		if b != bindingOAP && wr.version == a2a.V10 && r.Method == http.MethodPost && !jsonContentType(r.Header.Get("Content-Type")) {
			h.contentTypeError(w, r, b, wr)
			return
		}
		next(w, r, call{id: id, wire: wr})
	}
}

// jsonContentType reports whether a request's Content-Type is JSON
// (application/json, or any application/...+json such as
// application/a2a+json), or absent: requests without one are read as JSON.
func jsonContentType(ct string) bool {
	if ct == "" || ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// contentTypeError refuses an A2A 1.0 request whose body is declared as
// something other than JSON, before reading it: -32005
// ContentTypeNotSupported (JSON-RPC, id null since the body is not read),
// or 415 (REST). Requests without A2A-Version keep the 0.3 server's
// leniency; OAP checks its own media type.
func (h *handler) contentTypeError(w http.ResponseWriter, r *http.Request, b binding, wr *wire) {
	e := a2a.Errorf(a2a.CodeContentTypeNotSupported, "Content-Type %q is not supported: A2A 1.0 request bodies are JSON; send Content-Type: application/json", r.Header.Get("Content-Type"))
	if b == bindingJSONRPC {
		h.writeBody(w, r, "application/json", jsonrpc.EncodeError(jsonrpc.NullID, wr.rpcError(e)))
	} else {
		_, body := a2av1.StatusBody(e)
		body.Error.Code = http.StatusUnsupportedMediaType
		writeJSONStatus(w, http.StatusUnsupportedMediaType, body)
	}
}

// authenticated serves a route outside the A2A bindings (the health
// profile) to authenticated callers only.
func (h *handler) authenticated(next func(http.ResponseWriter, *http.Request, auth.Identity)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if id, ok := h.identify(w, r, bindingREST, h.v10); ok {
			next(w, r, id)
		}
	}
}

// unauthenticated answers an A2A request without valid credentials: 401,
// except a JSON-RPC call of the extended card method, which is answered
// -32007 (HTTP 200, as every JSON-RPC error), as the conformance checks
// expect; both carry WWW-Authenticate.
func (h *handler) unauthenticated(w http.ResponseWriter, r *http.Request, b binding, wr *wire) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="a2a"`)
	if b == bindingJSONRPC {
		body, ok := h.readBody(w, r)
		if !ok {
			return
		}
		if req, respID, err := jsonrpc.Decode(body); err == nil && req.Method == wr.extendedCardMethod {
			h.writeBody(w, r, "application/json", jsonrpc.EncodeError(respID, wr.rpcError(errExtendedCardCredentials)))
			return
		}
	}
	writeHTTPError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "a valid bearer token is required: send Authorization: Bearer <token>")
}

// identify authenticates the caller and spends one request of its budget
// (that of its source address when it is not authenticated), answering
// 429 or 401 in b's shape and returning false when the request goes no
// further.
func (h *handler) identify(w http.ResponseWriter, r *http.Request, b binding, wr *wire) (auth.Identity, bool) {
	id, err := h.auth.Authenticate(r)
	if !h.admit(w, r, b, wr, id, err == nil) {
		return auth.Identity{}, false
	}
	if err != nil {
		h.unauthenticated(w, r, b, wr)
		return auth.Identity{}, false
	}
	return id, true
}

// versionError answers a request whose A2A-Version is not supported, in
// the 1.0 error shape: a JSON-RPC error (-32009, HTTP 200, with the
// request's id when it can be read), a REST 400, or an OAP error envelope.
func (h *handler) versionError(w http.ResponseWriter, r *http.Request, b binding, err error) {
	e := h.protocolError(r.Context(), err, "version")
	switch b {
	case bindingJSONRPC:
		id, ok := h.requestID(w, r)
		if !ok {
			return
		}
		h.writeBody(w, r, "application/json", jsonrpc.EncodeError(id, h.v10.rpcError(e)))
	case bindingOAP:
		h.oapVersionError(w, r, e)
	default:
		writeRESTError(w, e)
	}
}

// requestID reads the id of a JSON-RPC request refused before its
// handler, so that the client can match the error: null when the body is
// no request. It returns false when the body could not be read (answered).
func (h *handler) requestID(w http.ResponseWriter, r *http.Request) (json.RawMessage, bool) {
	body, ok := h.readBody(w, r)
	if !ok {
		return nil, false
	}
	if _, id, _ := jsonrpc.Decode(body); id != nil {
		return id, true
	}
	return jsonrpc.NullID, true
}

func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	writeHTTPError(w, http.StatusNotFound, "NOT_FOUND", "no route for "+r.Method+" "+requestPath(r))
}

// requestPath is the path the client asked for (ServeHTTP drops a tenant
// segment from r.URL's to find its route).
func requestPath(r *http.Request) string {
	if p, _, _ := strings.Cut(r.RequestURI, "?"); strings.HasPrefix(p, "/") {
		return p
	}
	return r.URL.Path
}
