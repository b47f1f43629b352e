package sfntest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// newServer serves handler on a loopback listener for the test and returns
// its URL.
func newServer(t testing.TB, handler http.Handler) string {
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL
}
