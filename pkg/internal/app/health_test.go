package app_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
)

func TestLocalHealthProfile(t *testing.T) {
	env := map[string]string{"A2A_DEMO_WORK_MS": "0"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	ag, err := builtin.Registry().New("demo", func(k string) string { return env[k] })
	require.NoError(t, err)
	srv, err := app.NewLocal(cfg, ag, app.LocalOptions{Auth: auth.NewBearer(map[string]string{"ops": "tok"})})
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	rec := httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
	assert.Equal(t, http.StatusUnauthorized, rec.Code)

	req := httptest.NewRequest("GET", "/health", nil)
	req.Header.Set("Authorization", "Bearer tok")
	rec = httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	var p map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	assert.Equal(t, "ok", p["status"])
	assert.Equal(t, "memory", p["store_backend"])
	assert.Equal(t, "local", p["execution_mode"])
	assert.Equal(t, true, p["push_notifications"])
	assert.Equal(t, []any{"0.3", "1.0"}, p["supported_protocol_versions"])
	assert.Equal(t, "a2a-lambda demo agent", p["agent"].(map[string]any)["name"])
	assert.Equal(t, buildinfo.Version(), p["version"], "this module's version, from the build information")
	assert.NotEqual(t, "(devel)", p["version"])
}
