package runtimeapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runtimeapi"
)

func TestReportInitError(t *testing.T) {
	var got runtimeapi.InitError
	var path, errType string
	status := http.StatusAccepted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, errType = r.Method+" "+r.URL.Path, r.Header.Get("Lambda-Runtime-Function-Error-Type")
		require.NoError(t, json.NewDecoder(r.Body).Decode(&got))
		w.WriteHeader(status)
	}))
	defer srv.Close()
	api := strings.TrimPrefix(srv.URL, "http://")

	err := runtimeapi.ReportInitError(context.Background(), srv.Client(), api, errors.New(`configuration: A2A_LOG_LEVEL="loud": must be debug, info, warn or error`))
	require.NoError(t, err)
	assert.Equal(t, "POST /2018-06-01/runtime/init/error", path)
	assert.Equal(t, "Runtime.InitError", errType)
	assert.Equal(t, runtimeapi.InitError{ErrorMessage: `configuration: A2A_LOG_LEVEL="loud": must be debug, info, warn or error`, ErrorType: "Runtime.InitError", StackTrace: []string{}}, got)

	status = http.StatusInternalServerError
	assert.ErrorContains(t, runtimeapi.ReportInitError(context.Background(), srv.Client(), api, errors.New("x")), "HTTP 500")
	assert.Error(t, runtimeapi.ReportInitError(context.Background(), srv.Client(), "127.0.0.1:1", errors.New("x")), "nobody listens")
}
