package httpstatus_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/httpstatus"
)

func TestWriterStatus(t *testing.T) {
	for name, tc := range map[string]struct {
		handle func(w http.ResponseWriter)
		want   int
	}{
		"nothing written":  {func(http.ResponseWriter) {}, 0},
		"body only":        {func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }, http.StatusOK},
		"header":           {func(w http.ResponseWriter) { w.WriteHeader(http.StatusGone) }, http.StatusGone},
		"first final code": {func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted); w.WriteHeader(http.StatusTeapot) }, http.StatusAccepted},
		"informational": {func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusNotFound)
		}, http.StatusNotFound},
		"header then body": {func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("x"))
		}, http.StatusCreated},
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := httpstatus.NewWriter(rec)
			tc.handle(w)
			assert.Equal(t, tc.want, w.Status())
		})
	}
}

func TestWriterUnwrap(t *testing.T) {
	rec := httptest.NewRecorder()
	w := httpstatus.NewWriter(rec)
	require.NoError(t, http.NewResponseController(w).Flush())
	assert.True(t, rec.Flushed, "Flush reaches the underlying writer")
}
