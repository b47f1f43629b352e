package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/verify"
)

// jwksPath is where an agent of this host serves its notification keys.
const jwksPath = "/.well-known/jwks.json"

// shutdownGrace bounds how long the listener waits for requests in flight
// when it is stopped.
const shutdownGrace = 5 * time.Second

// webhook runs "a2a webhook listen ADDR": a local receiver that verifies
// the agent's signed push notifications with package verify and prints one
// line per notification. Verification cannot be switched off: the command
// exists to show what a receiver accepts. It runs until interrupted, which
// is its normal end, so SIGINT and SIGTERM exit 0.
func (r *runner) webhook(args []string) int {
	if len(args) == 0 || args[0] != "listen" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return r.webhook([]string{"listen", "-h"})
		}
		return r.usageError(nil, "expected: a2a webhook listen ADDR --agent URL")
	}
	fs := r.baseFlags()
	agentURL := fs.String("agent", "", "the agent's base URL; its keys are read from URL"+jwksPath)
	jwksURL := fs.String("jwks", "", "the URL of the agent's JWKS (default: from --agent)")
	token := fs.String("token", "", "the notification token registered with the push config (a2a send --push-token); notifications without it are refused")
	audience := fs.String("audience", "", "this webhook's URL exactly as registered with the push config (default http://ADDR/)")
	fs.BoolVar(&r.common.json, "json", false, "print each notification as one JSON line")
	pos, code, ok := r.parse(fs, args[1:], 1, 1)
	if !ok {
		return code
	}
	keysURL, err := jwksLocation(*jwksURL, *agentURL)
	if err != nil {
		return r.usageError(nil, "%v", err)
	}
	ln, err := net.Listen("tcp", pos[0])
	if err != nil {
		return r.fail(fmt.Errorf("listen on %s: %w", pos[0], err))
	}
	defer ln.Close()
	aud := *audience
	if aud == "" {
		aud = listenURL(pos[0], ln.Addr())
	}
	rc := &receiver{out: r.out, errw: r.errw, json: r.common.json}
	v, err := verify.New(verify.Options{
		Keys:         verify.NewJWKS(keysURL, verify.JWKSOptions{Client: r.env.HTTPClient}),
		Audience:     aud,
		Token:        *token,
		OnUnanswered: rc.unanswered,
	})
	if err != nil {
		return r.fail(err)
	}
	// The banner is written at once, so whoever waits for it sees all of it.
	var banner strings.Builder
	fmt.Fprintf(&banner, "a2a webhook: listening on %s\n  register it: a2a send AGENT TEXT --push-url %s", aud, aud)
	if *token != "" {
		banner.WriteString(" --push-token TOKEN")
	}
	fmt.Fprintf(&banner, "\n  keys:        %s\n", keysURL)
	if err := r.checkKeys(keysURL); err != nil {
		fmt.Fprintf(&banner, "a2a webhook: warning: %v; notifications are refused until the keys can be read\n", err)
	}
	io.WriteString(r.errw, banner.String())
	return r.serve(ln, v.Middleware(http.HandlerFunc(rc.print)))
}

// jwksLocation returns the JWKS URL from --jwks, or derived from --agent.
func jwksLocation(jwksURL, agentURL string) (string, error) {
	if jwksURL == "" && agentURL == "" {
		return "", errors.New("give the agent's URL (--agent URL) or its keys' URL (--jwks URL)")
	}
	if jwksURL == "" {
		base := strings.TrimRight(agentURL, "/")
		for _, card := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
			base = strings.TrimSuffix(base, card)
		}
		jwksURL = base + jwksPath
	}
	u, err := url.Parse(jwksURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", jwksURL)
	}
	return jwksURL, nil
}

// listenURL is the default audience: http://ADDR/ with the port actually
// bound (ADDR may ask for port 0) and, for a wildcard host, 127.0.0.1,
// since the deliverer reaches plain-http webhooks only on loopback.
func listenURL(addr string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	_, port, _ := net.SplitHostPort(bound.String())
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// checkKeys reads the JWKS once, so that a wrong --agent shows at start-up
// rather than as refused notifications.
func (r *runner) checkKeys(jwksURL string) error {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jwksURL, nil)
	if err != nil {
		return err
	}
	resp, err := r.do(req)
	if err != nil {
		return fmt.Errorf("cannot read the agent's keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %s", jwksURL, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<10))
	if err != nil {
		return fmt.Errorf("read %s: %w", jwksURL, err)
	}
	if pubs, err := keys.ParseJWKS(b); err != nil || len(pubs) == 0 {
		return fmt.Errorf("%s holds no usable signing key (%v)", jwksURL, err)
	}
	return nil
}

// serve answers on ln until the command's context ends.
func (r *runner) serve(ln net.Listener, h http.Handler) int {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return r.fail(fmt.Errorf("serve: %w", err))
	case <-r.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintf(r.errw, "a2a webhook: stop: %v\n", err)
	}
	fmt.Fprintln(r.errw, "a2a webhook: stopped")
	return ExitOK
}

// receiver prints verified notifications and reports refused ones.
type receiver struct {
	mu        sync.Mutex // one line at a time
	out, errw io.Writer
	json      bool
}

// unanswered reports on errw what the verifier answered by itself: a
// duplicate, or a refusal.
func (rc *receiver) unanswered(req *http.Request, status int, err error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	now := time.Now().Format(time.TimeOnly)
	if errors.Is(err, verify.ErrDuplicate) {
		fmt.Fprintf(rc.errw, "%s duplicate %s ignored (answered %d)\n", now, req.Header.Get("Webhook-Id"), status)
		return
	}
	fmt.Fprintf(rc.errw, "%s refused %s %s from %s: %d %s\n", now, req.Method, req.URL.Path, req.RemoteAddr, status, err)
}

// print is called for each verified notification.
func (rc *receiver) print(w http.ResponseWriter, req *http.Request) {
	n, _ := verify.FromContext(req.Context())
	at := time.Now()
	state, text := summarize(n.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.json {
		line := notificationLine{
			Time: at.Format(time.RFC3339Nano), EventID: n.EventID, TaskID: n.TaskID, Version: n.TaskVersion,
			State: state, Text: text, ContentType: n.ContentType, Body: json.RawMessage(n.Body),
		}
		if !json.Valid(n.Body) {
			line.Body, _ = json.Marshal(string(n.Body))
		}
		b, err := json.Marshal(line)
		if err != nil {
			http.Error(w, "cannot print the notification", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(rc.out, string(b))
	} else {
		if state == "" {
			state = "update"
		}
		line := fmt.Sprintf("%s task %s v%d %s", at.Format(time.TimeOnly), n.TaskID, n.TaskVersion, state)
		if text != "" {
			line += ": " + oneLine(text, 200)
		}
		fmt.Fprintln(rc.out, line)
	}
	w.WriteHeader(http.StatusNoContent)
}

// notificationLine is one notification printed by --json.
type notificationLine struct {
	Time        string          `json:"time"`
	EventID     string          `json:"eventId"`
	TaskID      string          `json:"taskId"`
	Version     int64           `json:"version"`
	State       string          `json:"state,omitempty"`
	Text        string          `json:"text,omitempty"`
	ContentType string          `json:"contentType,omitempty"`
	Body        json.RawMessage `json:"body"`
}

// summarize returns the task state (as 0.3 names it) and status text of a
// notification body: an A2A 1.0 StreamResponse holding a task or a status
// update, or an A2A 0.3 Task, read by the codecs of both versions. Other
// bodies give empty strings.
func summarize(body []byte) (state, text string) {
	ev, err := a2av1.DecodeStreamResponse(body)
	if err != nil {
		if ev, err = a2a.DecodeEvent(body); err != nil {
			return "", ""
		}
	}
	var s *a2a.TaskStatus
	switch {
	case ev.Task != nil:
		s = &ev.Task.Status
	case ev.StatusUpdate != nil:
		s = &ev.StatusUpdate.Status
	default:
		return "", ""
	}
	return string(s.State), s.Message.Text()
}
