package app_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
)

// RunLocal serves the card from NewLocalCard until NewLocal has built the
// rest: the two must answer a card request alike, byte for byte and
// header for header, the loopback guard included, whatever decides the
// card (authentication, push notifications, the versions served).
func TestNewLocalCardAnswersAsNewLocal(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		authn app.LocalOptions
		req   func() *http.Request
		want  int
	}{
		{"anonymous, the card", nil, app.LocalOptions{Auth: auth.Anonymous{}}, func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8000/.well-known/agent-card.json", nil)
		}, http.StatusOK},
		{"anonymous, the 0.3 name", nil, app.LocalOptions{Auth: auth.Anonymous{}}, func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8000/.well-known/agent.json", nil)
		}, http.StatusOK},
		{"anonymous, another site's name (the guard)", nil, app.LocalOptions{Auth: auth.Anonymous{}}, func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "http://rebound.example:8000/.well-known/agent-card.json", nil)
		}, http.StatusForbidden},
		{"a token, push off, 1.0 only", map[string]string{"A2A_PUSH_NOTIFICATIONS": "false", "A2A_PROTOCOL_VERSIONS": "1.0"},
			app.LocalOptions{Auth: auth.NewBearer(map[string]string{"dev": "t"})}, func() *http.Request {
				return httptest.NewRequest(http.MethodGet, "http://localhost:8000/.well-known/agent-card.json", nil)
			}, http.StatusOK},
		{"a conditional request", nil, app.LocalOptions{Auth: auth.Anonymous{}}, func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8000/.well-known/agent-card.json", nil)
			r.Header.Set("If-None-Match", "*")
			return r
		}, http.StatusNotModified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Load(func(k string) string { return tt.env[k] })
			require.NoError(t, err)
			srv, err := app.NewLocal(cfg, echo.Agent{}, tt.authn)
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			card, err := app.NewLocalCard(cfg, echo.Agent{}.Info(), tt.authn)
			require.NoError(t, err)

			full, early := httptest.NewRecorder(), httptest.NewRecorder()
			srv.Handler.ServeHTTP(full, tt.req())
			card.ServeHTTP(early, tt.req())
			assert.Equal(t, tt.want, full.Code)
			assert.Equal(t, full.Code, early.Code)
			assert.Equal(t, full.Header(), early.Header())
			assert.Equal(t, full.Body.String(), early.Body.String())
		})
	}
}
