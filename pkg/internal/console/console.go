// Package console is the local server's web console at /console/: the
// caller's tasks (live, by polling), a task's status, history, artifacts,
// interrupts (answered with a click), cancel, its push notification
// deliveries with a redrive button, and a form to send a message.
//
// It is rendered on the server (views.go, each value escaped for where it
// lands); a little plain JavaScript (static/console.js) refreshes the live
// part of a page. It loads nothing from elsewhere, and every answer
// carries a strict Content-Security-Policy. It calls the A2A operations in
// process, as the caller the API's authentication names: with bearer
// tokens, the console asks for one and keeps it in an HttpOnly,
// SameSite=Strict cookie.
// Every form carries a token bound to that cookie, and a request a browser
// marks as coming from another site is refused. The Lambda functions never
// link it (a test in functions/ holds them to that).
package console

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
)

// Path is where the console is served.
const Path = "/console/"

// Service is what the console needs of the A2A operations.
type Service interface {
	Send(ctx context.Context, owner string, p a2a.MessageSendParams) (a2a.SendResult, error)
	GetTask(ctx context.Context, owner string, p a2a.TaskQueryParams) (*a2a.Task, error)
	ListTasks(ctx context.Context, owner string, p a2a.ListTasksParams) (*a2a.ListTasksResult, error)
	CancelTask(ctx context.Context, owner string, p a2a.TaskIDParams) (*a2a.Task, error)
	ReplyPermission(ctx context.Context, owner string, p a2a.PermissionReplyParams) (*a2a.InterruptReplyResult, error)
	ReplyQuestion(ctx context.Context, owner string, p a2a.QuestionReplyParams) (*a2a.InterruptReplyResult, error)
	RejectQuestion(ctx context.Context, owner string, p a2a.QuestionRejectParams) (*a2a.InterruptReplyResult, error)
	ListDeliveries(ctx context.Context, owner string, p a2a.ListDeliveriesParams) (*a2a.ListDeliveriesResult, error)
	RedriveDeliveries(ctx context.Context, owner string, p a2a.RedriveDeliveriesParams) (*a2a.RedriveDeliveriesResult, error)
}

// Authenticator identifies the caller of a request, as the API does;
// httpapi.Authenticator.
type Authenticator interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// Options configure the console.
type Options struct {
	Service Service
	Auth    Authenticator
	// Bearer says that the API wants a bearer token: the console asks
	// for one. Without it every visitor is the caller Auth admits
	// without credentials (the local server's anonymous caller).
	Bearer bool
	// Push shows the deliveries of push notifications and the webhook
	// field of the message form.
	Push bool
	// AgentName titles the pages.
	AgentName string
	Logger    *slog.Logger
}

// CSP is the Content-Security-Policy of every answer: the console's own
// script, style and forms, nothing else, and no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// tokenCookie keeps the bearer token the console was given.
const tokenCookie = "a2a_console_token"

//go:embed static
var staticFS embed.FS

// handler serves the console.
type handler struct {
	o   Options
	log *slog.Logger
	// key signs the form tokens (random per process), made at the first
	// page served: a process's first random number costs it tens of
	// microseconds, which a start-up need not spend.
	key func() []byte
	// routes is made at the first request too: registering a pattern
	// costs a process's start-up some microseconds each.
	routes func() *http.ServeMux
}

// New returns the console's handler, to mount at Path.
func New(o Options) (http.Handler, error) {
	if o.Service == nil || o.Auth == nil {
		return nil, errors.New("console: a service and an authenticator are required")
	}
	h := &handler{o: o, log: cmp.Or(o.Logger, slog.New(slog.DiscardHandler)), key: sync.OnceValue(newKey)}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.routes = sync.OnceValue(func() *http.ServeMux { return h.newMux(static) })
	return h, nil
}

// newKey is a new key for the form tokens.
func newKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // it does not fail: it would end the process
	return k
}

// newMux routes the console's pages and actions.
func (h *handler) newMux(static fs.FS) *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("GET "+Path+"static/", http.StripPrefix(Path+"static/", http.FileServerFS(static)))
	m.HandleFunc("GET "+Path+"login", h.loginPage)
	m.HandleFunc("POST "+Path+"login", h.login)
	m.HandleFunc("POST "+Path+"logout", h.action(h.logout))
	m.HandleFunc("GET "+Path+"{$}", h.page(h.tasks))
	m.HandleFunc("GET "+Path+"tasks/{id}", h.page(h.task))
	m.HandleFunc("GET "+Path+"tasks/{id}/files/{artifact}/{part}", h.page(h.file))
	m.HandleFunc("POST "+Path+"send", h.action(h.send))
	m.HandleFunc("POST "+Path+"tasks/{id}/cancel", h.action(h.cancel))
	m.HandleFunc("POST "+Path+"tasks/{id}/permission", h.action(h.permission))
	m.HandleFunc("POST "+Path+"tasks/{id}/answer", h.action(h.answer))
	m.HandleFunc("POST "+Path+"tasks/{id}/decline", h.action(h.decline))
	m.HandleFunc("POST "+Path+"tasks/{id}/reply", h.action(h.reply))
	m.HandleFunc("POST "+Path+"tasks/{id}/redrive", h.action(h.redrive))
	m.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "There is no console page at "+r.URL.Path+".")
	})
	return m
}

// ServeHTTP sets the security headers of every answer and routes.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make Chrome send "Origin: null" with the console's own forms
	hd.Set("Cache-Control", "no-store")
	h.routes().ServeHTTP(w, r)
}

// session is a signed-in visitor: the caller, and the secret the form
// tokens are bound to (the bearer token, "" for the anonymous caller).
type session struct {
	id     auth.Identity
	secret string
	csrf   string
}

// session authenticates r as the API would: with the cookie's token as
// its bearer token when the API wants one.
func (h *handler) session(r *http.Request) (*session, bool) {
	secret := ""
	if h.o.Bearer {
		c, err := r.Cookie(tokenCookie)
		if err != nil || c.Value == "" {
			return nil, false
		}
		secret = c.Value
	}
	id, err := h.o.Auth.Authenticate(asBearer(r, secret))
	if err != nil {
		return nil, false
	}
	return &session{id: id, secret: secret, csrf: h.formToken(secret)}, true
}

// asBearer is r carrying token as its bearer token (none when empty).
func asBearer(r *http.Request, token string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.Header.Del("Authorization")
	if token != "" {
		r2.Header.Set("Authorization", "Bearer "+token)
	}
	return r2
}

// formToken is the anti-forgery token of the forms of a session.
func (h *handler) formToken(secret string) string {
	m := hmac.New(sha256.New, h.key())
	m.Write([]byte("a2a-console form\x00" + secret))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// sameSite reports whether a state-changing request comes from the
// console's own pages: a browser's Sec-Fetch-Site, when sent, says
// same-origin; its Origin, when sent, is the request's own host.
func sameSite(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return false
		}
	}
	return true
}

// page serves a GET page to a signed-in visitor; others are sent to the
// token prompt.
func (h *handler) page(next func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.session(r)
		if !ok {
			h.toLogin(w, r)
			return
		}
		next(w, r, s)
	}
}

// action serves a form POST: from the console's own pages, with the
// session's form token, by a signed-in visitor.
func (h *handler) action(next func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if !sameSite(r) {
			h.fail(w, r, http.StatusForbidden, "This form was sent from another site; the console accepts its own forms only.")
			return
		}
		s, ok := h.session(r)
		if !ok {
			h.toLogin(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			h.fail(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(s.csrf)) != 1 {
			h.fail(w, r, http.StatusForbidden, "This form has expired or was not made by the console; reload the page and try again.")
			return
		}
		next(w, r, s)
	}
}

// maxFormBytes bounds a form.
const maxFormBytes = 1 << 20

func (h *handler) toLogin(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("fragment") != "" {
		w.WriteHeader(http.StatusUnauthorized) // the page's script reloads
		return
	}
	next := r.URL.Path
	if r.Method != http.MethodGet {
		next = Path
	}
	http.Redirect(w, r, Path+"login?next="+url.QueryEscape(next), http.StatusSeeOther)
}

// localNext is a console path to go to after signing in; anything else
// (another site) is the task list.
func localNext(next string) string {
	if !strings.HasPrefix(next, Path) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Path
	}
	return next
}

func (h *handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if !h.o.Bearer {
		http.Redirect(w, r, Path, http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, pageLogin, view{Title: "Sign in", Next: localNext(r.URL.Query().Get("next"))})
}

// login takes the token of the prompt: when the API accepts it, the
// console keeps it in its cookie.
func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if !sameSite(r) {
		h.fail(w, r, http.StatusForbidden, "This form was sent from another site; the console accepts its own forms only.")
		return
	}
	if err := r.ParseForm(); err != nil || !h.o.Bearer {
		http.Redirect(w, r, Path, http.StatusSeeOther)
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	next := localNext(r.PostForm.Get("next"))
	if _, err := h.o.Auth.Authenticate(asBearer(r, token)); token == "" || err != nil {
		h.render(w, r, http.StatusUnauthorized, pageLogin, view{Title: "Sign in", Next: next, Error: "The server does not accept that token."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: Path, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(r)})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *handler) logout(w http.ResponseWriter, r *http.Request, _ *session) {
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: "", Path: Path, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(r)})
	http.Redirect(w, r, Path+"login", http.StatusSeeOther)
}

// secure reports whether the browser reached the console over https.
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// render writes a page (or, with ?fragment=1, its live part alone).
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, p page, v view) {
	v.Agent, v.Bearer, v.Push = h.o.AgentName, h.o.Bearer, h.o.Push
	var b htmlWriter
	p.write(&b, &v, r.URL.Query().Get("fragment") != "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, b.String())
}

// fail answers with an error page.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, pageError, view{Title: http.StatusText(status), Error: msg})
}

// failCall answers with the error of an operation: its message when it is
// a protocol error, a generic one (the cause logged) otherwise.
func (h *handler) failCall(w http.ResponseWriter, r *http.Request, err error) {
	var ae *a2a.Error
	if errors.As(err, &ae) {
		h.fail(w, r, ae.Code.HTTPStatus(), ae.WireMessage())
		return
	}
	h.log.ErrorContext(r.Context(), "console: an operation failed", "path", r.URL.Path, "error", err)
	h.fail(w, r, http.StatusInternalServerError, "The operation failed; the server logged why.")
}
