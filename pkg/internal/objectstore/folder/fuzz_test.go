package folder_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/folder"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/objectstoretest"
)

// FuzzHandler: whatever path and query reach the folder's handler, it
// never panics and never serves or stores an object but through a URL it
// signed (every forged request is 403, or 405 for another method).
func FuzzHandler(f *testing.F) {
	s, err := folder.New(f.TempDir(), "http://files.test", folder.Options{})
	if err != nil {
		f.Fatal(err)
	}
	content := []byte("secret")
	if err := s.Put(context.Background(), "files/o/k", bytes.NewReader(content), 6, objectstore.PutOptions{SHA256: objectstoretest.Hash(content)}); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"/files/files/o/k", "/files/files/o/k?expires=9999999999&signature=00", "/files/../signing.key", "/files/files/o/k?expires=9999999999&size=1&sha256=ab&signature=",
		"/files/%2e%2e/signing.key?expires=1", "/files/files/o/k.meta"} {
		f.Add("GET", seed)
		f.Add("PUT", seed)
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, method, target string) {
		req, err := http.NewRequest(method, "http://files.test"+target, bytes.NewReader([]byte("x")))
		if err != nil || req.URL.Path == "" {
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden && rec.Code != http.StatusMethodNotAllowed {
			t.Fatalf("%s %s: answered %d %s", method, target, rec.Code, rec.Body)
		}
	})
}
