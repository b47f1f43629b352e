package app_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/console"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// consoleServer is the local server with env, and its handler.
func consoleServer(t *testing.T, env map[string]string, authn httpAuth) (*app.Local, http.Handler) {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: authn})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv, srv.Handler
}

type httpAuth interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// visit sends one request as a browser on the console's own page would.
func visit(h http.Handler, method, target, body, cookie string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Host = "127.0.0.1:8000"
	if body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", "http://127.0.0.1:8000")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// With bearer tokens the console asks for one and acts as its caller;
// every form needs the page's token and the console's own origin.
func TestConsoleWithBearerTokens(t *testing.T) {
	_, h := consoleServer(t, map[string]string{"A2A_BEARER_TOKENS": "alice:tok-alice-16-chars,bob:tok-bob-16-chars0"}, auth.NewBearer(map[string]string{"alice": "tok-alice-16-chars", "bob": "tok-bob-16-chars0"}))

	w := visit(h, "GET", "/console/", "", "")
	require.Equal(t, http.StatusSeeOther, w.Code)
	assert.Equal(t, "/console/login?next=%2Fconsole%2F", w.Header().Get("Location"))
	assert.Equal(t, console.CSP, w.Header().Get("Content-Security-Policy"), "every answer carries the policy")
	assert.Equal(t, http.StatusMovedPermanently, visit(h, "GET", "/console", "", "").Code, "the path without its slash redirects")

	w = visit(h, "POST", "/console/login", "token=wrong&next=%2Fconsole%2F", "")
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Contains(t, w.Body.String(), "does not accept that token")
	w = visit(h, "POST", "/console/login", "token=tok-alice-16-chars&next=https%3A%2F%2Fevil.example%2F", "")
	require.Equal(t, http.StatusSeeOther, w.Code)
	assert.Equal(t, "/console/", w.Header().Get("Location"), "never to another site after signing in")
	c := w.Result().Cookies()[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/console/", c.Path)
	alice := c.Name + "=" + c.Value

	w = visit(h, "GET", "/console/", "", alice)
	require.Equal(t, http.StatusOK, w.Code)
	m := csrfField.FindStringSubmatch(w.Body.String())
	require.NotNil(t, m)
	form := url.Values{"csrf": {m[1]}, "text": {`<script>alert("x")</script>`}}.Encode()

	w = visit(h, "POST", "/console/send", strings.Replace(form, "csrf=", "csrf=x", 1), alice)
	assert.Equal(t, http.StatusForbidden, w.Code, "a form without the page's token is refused")
	w = visit(h, "POST", "/console/send", form, alice, "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, http.StatusForbidden, w.Code, "a form from another site is refused")
	w = visit(h, "POST", "/console/send", form, alice, "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, w.Code)
	w = visit(h, "POST", "/console/send", form, "a2a_console_token=tok-bob-16-chars0")
	assert.Equal(t, http.StatusForbidden, w.Code, "the page's token is bound to its caller")

	w = visit(h, "POST", "/console/send", form, alice)
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	taskPage := w.Header().Get("Location")
	require.True(t, strings.HasPrefix(taskPage, "/console/tasks/"))
	require.Eventually(t, func() bool {
		return strings.Contains(visit(h, "GET", taskPage, "", alice).Body.String(), "state-completed")
	}, 5*time.Second, 10*time.Millisecond)
	page := visit(h, "GET", taskPage, "", alice).Body.String()
	assert.Contains(t, page, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`, "what tasks hold is escaped")
	assert.NotContains(t, page, `<script>alert`)

	live := visit(h, "GET", taskPage+"?fragment=1", "", alice)
	assert.Equal(t, http.StatusOK, live.Code)
	assert.NotContains(t, live.Body.String(), "<html", "the live part alone")
	assert.Equal(t, http.StatusUnauthorized, visit(h, "GET", taskPage+"?fragment=1", "", "").Code, "the page's script reloads to the prompt")
	assert.Equal(t, http.StatusNotFound, visit(h, "GET", taskPage, "", "a2a_console_token=tok-bob-16-chars0").Code, "another caller's task is not found")
}

// Without tokens, on loopback, the console is behind the same guard as
// the API; A2A_CONSOLE=false turns it off.
func TestConsoleOnLoopbackAndOff(t *testing.T) {
	srv, h := consoleServer(t, map[string]string{}, auth.Anonymous{})
	w := visit(h, "GET", "/console/", "", "")
	require.Equal(t, http.StatusOK, w.Code, "no token to ask for")
	assert.NotContains(t, w.Body.String(), "Sign out")
	assert.Equal(t, http.StatusForbidden, visit(h, "GET", "/console/", "", "", "Origin", "http://evil.example").Code, "a page of another site is refused")
	r := httptest.NewRequest("GET", "/console/", nil)
	r.Host = "evil.example:8000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	assert.Equal(t, http.StatusForbidden, rec.Code, "a name that is not loopback (DNS rebinding) is refused")

	// An artifact's inline file is served as a download, nothing else.
	ctx := context.Background()
	done := &a2a.Message{Role: a2a.RoleAgent, MessageID: "s-f", TaskID: "t-file", ContextID: "c-file", Parts: []a2a.Part{a2a.TextPart("done")}}
	require.NoError(t, srv.Store.CreateTask(ctx, store.NewTask{Owner: auth.AnonymousOwner, BindingKnown: true, Task: a2a.Task{
		ID: "t-file", ContextID: "c-file", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: done, Timestamp: a2a.FormatTime(time.Now())},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-f", TaskID: "t-file", ContextID: "c-file", Parts: []a2a.Part{a2a.TextPart("hi")}}, *done},
		Artifacts: []a2a.Artifact{{ArtifactID: "report", Parts: []a2a.Part{{Kind: a2a.PartKindFile, File: &a2a.FileContent{
			Name: "report.html", MimeType: "text/html", Bytes: base64.StdEncoding.EncodeToString([]byte("<h1>report</h1>"))}}}}},
	}}))
	page := visit(h, "GET", "/console/tasks/t-file", "", "").Body.String()
	assert.Contains(t, page, `href="/console/tasks/t-file/files/report/0" download`)
	w = visit(h, "GET", "/console/tasks/t-file/files/report/0", "", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "<h1>report</h1>", w.Body.String())
	assert.Equal(t, `attachment; filename=report.html`, w.Header().Get("Content-Disposition"))
	assert.Contains(t, w.Header().Get("Content-Security-Policy"), "sandbox")
	assert.Equal(t, http.StatusNotFound, visit(h, "GET", "/console/tasks/t-file/files/report/1", "", "").Code)

	_, off := consoleServer(t, map[string]string{"A2A_CONSOLE": "false"}, auth.Anonymous{})
	assert.Equal(t, http.StatusNotFound, visit(off, "GET", "/console/", "", "").Code)
}
