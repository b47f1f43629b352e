// Package httpapi is the HTTP edge of the server: one http.Handler that
// serves JSON-RPC on POST /, the HTTP+JSON (REST) binding under /rest, the
// agent cards under /.well-known/, with authentication, a request body limit
// and the mapping of errors to the wire, done once here.
//
// Locally the handler is mounted on net/http; in Lambda each HTTP function
// wraps it (or the route groups it owns) with aws-lambda-go-api-proxy.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/card"
)

// Service is what the edge needs of the A2A operations.
type Service interface {
	SendMessage(ctx context.Context, owner string, p a2a.MessageSendParams) (*a2a.Task, error)
	GetTask(ctx context.Context, owner string, p a2a.TaskQueryParams) (*a2a.Task, error)
	CancelTask(ctx context.Context, owner string, p a2a.TaskIDParams) (*a2a.Task, error)
	ListTasks(ctx context.Context, owner string, p a2a.ListTasksParams) (*a2a.ListTasksResult, error)
	ReplyPermission(ctx context.Context, owner string, p a2a.PermissionReplyParams) (*a2a.InterruptReplyResult, error)
	ReplyQuestion(ctx context.Context, owner string, p a2a.QuestionReplyParams) (*a2a.InterruptReplyResult, error)
	RejectQuestion(ctx context.Context, owner string, p a2a.QuestionRejectParams) (*a2a.InterruptReplyResult, error)
	ListInterrupts(ctx context.Context, owner string, p a2a.ListInterruptsParams) (*a2a.ListInterruptsResult, error)
	SetPushConfig(ctx context.Context, owner, protocol string, p a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error)
	GetPushConfig(ctx context.Context, owner string, p a2a.GetTaskPushNotificationConfigParams) (*a2a.TaskPushNotificationConfig, error)
	ListPushConfigs(ctx context.Context, owner string, p a2a.ListTaskPushNotificationConfigParams) ([]a2a.TaskPushNotificationConfig, error)
	DeletePushConfig(ctx context.Context, owner string, p a2a.DeleteTaskPushNotificationConfigParams) error
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
	// RoutesRPC: JSON-RPC (POST /) and REST message:send.
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
	// MaxBodyBytes bounds request bodies (413 above it).
	MaxBodyBytes int64
	// Routes selects the route groups; zero means RoutesAll.
	Routes Routes
	// JWKS, when set, serves the push notification verification keys at
	// /.well-known/jwks.json with the cards (*keys.Set implements it).
	JWKS   http.Handler
	Logger *slog.Logger
}

type handler struct {
	svc     Service
	auth    Authenticator
	maxBody int64
	log     *slog.Logger
	cards   *cards
	methods map[string]rpcMethod
	mux     *http.ServeMux
}

// New returns the handler.
func New(o Options) (http.Handler, error) {
	if o.Routes == 0 {
		o.Routes = RoutesAll
	}
	if o.Routes&^RoutesCard != 0 && (o.Service == nil || o.Auth == nil) {
		return nil, errors.New("httpapi: Service and Auth are required for RPC and task routes")
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Cards == nil {
		return nil, errors.New("httpapi: Cards is required")
	}
	cs, err := newCards(o.Cards, o.PublicURL)
	if err != nil {
		return nil, err
	}
	h := &handler{svc: o.Service, auth: o.Auth, maxBody: o.MaxBodyBytes, log: o.Logger, cards: cs, mux: http.NewServeMux()}
	h.methods = h.rpcMethods()

	if o.Routes&RoutesCard != 0 {
		h.mux.HandleFunc("GET /.well-known/agent-card.json", h.serveCard)
		h.mux.HandleFunc("GET /.well-known/agent.json", h.serveCard)
		if o.JWKS != nil {
			h.mux.Handle("GET /.well-known/jwks.json", o.JWKS)
		}
	}
	if o.Routes&RoutesRPC != 0 {
		h.mux.HandleFunc("POST /{$}", h.authenticated(h.serveJSONRPC))
		for _, base := range restBases() {
			h.mux.HandleFunc("POST "+base+"/message:send", h.authenticated(h.restSend))
			h.mux.HandleFunc("POST "+base+"/message:stream", h.authenticated(h.restUnsupportedStream))
		}
	}
	if o.Routes&RoutesTasks != 0 {
		for _, base := range restBases() {
			h.mux.HandleFunc("GET "+base+"/tasks", h.authenticated(h.restList))
			h.mux.HandleFunc("GET "+base+"/tasks/{id}", h.authenticated(h.restGet))
			h.mux.HandleFunc("POST "+base+"/tasks/{id}", h.authenticated(h.restTaskAction))
			h.mux.HandleFunc("POST "+base+"/tasks/{id}/pushNotificationConfigs", h.authenticated(h.restSetPushConfig))
			h.mux.HandleFunc("GET "+base+"/tasks/{id}/pushNotificationConfigs", h.authenticated(h.restListPushConfigs))
			h.mux.HandleFunc("GET "+base+"/tasks/{id}/pushNotificationConfigs/{configId}", h.authenticated(h.restGetPushConfig))
			h.mux.HandleFunc("DELETE "+base+"/tasks/{id}/pushNotificationConfigs/{configId}", h.authenticated(h.restDeletePushConfig))
			h.mux.HandleFunc("GET "+base+"/card", h.authenticated(h.restExtendedCard))
		}
	}
	h.mux.HandleFunc("/", h.notFound)
	return h, nil
}

// restBases are the prefixes of the REST binding: the spec's /v1 form and
// the form without /v1 that some 0.3 clients call.
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
	h.mux.ServeHTTP(w, r)
}

// authenticated answers 401 to unauthenticated requests and puts the
// caller's identity in the request context for next.
func (h *handler) authenticated(next func(http.ResponseWriter, *http.Request, auth.Identity)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := h.auth.Authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="a2a"`)
			writeHTTPError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "a valid bearer token is required: send Authorization: Bearer <token>")
			return
		}
		next(w, r, id)
	}
}

func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	writeHTTPError(w, http.StatusNotFound, "NOT_FOUND", "no route for "+r.Method+" "+r.URL.Path)
}
