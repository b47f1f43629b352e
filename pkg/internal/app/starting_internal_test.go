package app

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func constant(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body) })
}

// While the server is built, the card is served by its own handler and
// every other request waits for the built server, then goes to it.
func TestStartingServesTheCardAndHoldsTheRest(t *testing.T) {
	s := newStarting(constant("early card"))
	for _, target := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(method, target, nil))
			assert.Equal(t, "early card", w.Body.String(), method+" "+target)
		}
	}
	tests := []struct{ method, target string }{
		{http.MethodPost, "/"},
		{http.MethodGet, "/.well-known/jwks.json"},
		{http.MethodPost, "/.well-known/agent-card.json"},
		{http.MethodGet, "/console/"},
	}
	answered := make(chan string, len(tests))
	for _, tt := range tests {
		go func() {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(tt.method, tt.target, nil))
			answered <- w.Body.String()
		}()
	}
	select {
	case b := <-answered:
		t.Fatalf("a request was answered before the server was built: %q", b)
	case <-time.After(50 * time.Millisecond):
	}
	s.finish(constant("built"), nil)
	for range tests {
		select {
		case b := <-answered:
			assert.Equal(t, "built", b)
		case <-time.After(5 * time.Second):
			t.Fatal("a waiting request was not answered once the server was built")
		}
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil))
	assert.Equal(t, "built", w.Body.String(), "once built, the built server serves the card too")
}

// A server that could not be built answers 503 with the reason, to the
// requests that waited for it and to those after.
func TestStartingSaysWhyTheServerFailed(t *testing.T) {
	s := newStarting(constant("early card"))
	waited := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", nil))
		waited <- w
	}()
	s.finish(nil, errors.New("A2A_FILES_DIR=/nowhere: permission denied"))
	for _, w := range []*httptest.ResponseRecorder{<-waited, httptest.NewRecorder()} {
		if w.Code == http.StatusOK {
			s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil))
		}
		assert.Equal(t, http.StatusServiceUnavailable, w.Code)
		assert.Contains(t, w.Body.String(), "the server failed to start: A2A_FILES_DIR=/nowhere: permission denied")
	}
}

// A request whose client goes away while the server is built is let go.
func TestStartingLetsAGoneClientGo(t *testing.T) {
	s := newStarting(constant("early card"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil).WithContext(ctx))
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		require.Fail(t, "the request still waits for the server")
	}
}
