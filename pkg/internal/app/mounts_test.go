package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
)

// The local server mounts the console and the files folder beside the A2A
// routes without a ServeMux of its own: each request must still reach the
// handler a ServeMux with those patterns would give it.
func TestLocalServerMounts(t *testing.T) {
	_, h := consoleServer(t, map[string]string{}, auth.Anonymous{})
	cases := []struct {
		name, method, target string
		status               int
		location             string
	}{
		{"console page", "GET", "/console/", http.StatusOK, ""},
		{"console without its slash", "GET", "/console", http.StatusMovedPermanently, "/console/"},
		{"console without its slash, HEAD", "HEAD", "/console", http.StatusMovedPermanently, "/console/"},
		{"a path that is not clean is redirected to the clean one", "GET", "/console/../.well-known/agent-card.json", http.StatusTemporaryRedirect, "/.well-known/agent-card.json"},
		{"a doubled slash too", "GET", "/console//tasks", http.StatusTemporaryRedirect, "/console/tasks"},
		{"the card", "GET", "/.well-known/agent-card.json", http.StatusOK, ""},
		{"a file URL without a signature", "GET", "/files/x", http.StatusForbidden, ""},
		{"a file URL takes PUT", "PUT", "/files/x", http.StatusForbidden, ""},
		{"and no other method: the A2A routes answer", "DELETE", "/files/x", http.StatusNotFound, ""},
		{"a path neither mounts nor routes", "GET", "/consoles", http.StatusNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := visit(h, c.method, c.target, "", "")
			assert.Equal(t, c.status, w.Code, w.Body.String())
			assert.Equal(t, c.location, w.Header().Get("Location"))
		})
	}
}
