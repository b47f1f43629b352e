package folder_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/folder"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/objectstoretest"
)

// serve returns a store of dir whose URLs a test server serves.
func serve(t *testing.T, dir string, clk *clocktest.Clock) *folder.Store {
	var s *folder.Store
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Handler().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	var err error
	s, err = folder.New(dir, srv.URL, folder.Options{Clock: clk})
	require.NoError(t, err)
	return s
}

func TestContract(t *testing.T) {
	clk := clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	objectstoretest.Run(t, func(t *testing.T) objectstore.Store { return serve(t, t.TempDir(), clk) },
		objectstoretest.Options{Strict: true, Expire: clk.Advance})
}

// The signing key is kept in the folder: a URL outlives a restart of the
// server, and the key file is its owner's alone.
func TestURLsOutliveARestart(t *testing.T) {
	dir := t.TempDir()
	clk := clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	a := serve(t, dir, clk)
	content := []byte("hello")
	require.NoError(t, a.Put(context.Background(), "files/k", bytes.NewReader(content), 5, objectstore.PutOptions{SHA256: objectstoretest.Hash(content)}))
	u, err := a.PresignGet(context.Background(), "files/k", time.Hour)
	require.NoError(t, err)

	b := serve(t, dir, clk)
	u2, err := b.PresignGet(context.Background(), "files/k", time.Hour)
	require.NoError(t, err)
	_, q1, _ := strings.Cut(u, "?")
	_, q2, _ := strings.Cut(u2, "?")
	assert.Equal(t, q1, q2, "the same signature after a restart")
	st, err := os.Stat(filepath.Join(dir, "signing.key"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

// A Put whose content does not match its SHA-256 is refused and stores
// nothing.
func TestPutChecksTheHash(t *testing.T) {
	s := serve(t, t.TempDir(), clocktest.New(time.Now()))
	err := s.Put(context.Background(), "files/k", strings.NewReader("hello"), 5, objectstore.PutOptions{SHA256: objectstoretest.Hash([]byte("world"))})
	assert.ErrorIs(t, err, objectstore.ErrDigest)
	_, err = s.Head(context.Background(), "files/k")
	assert.ErrorIs(t, err, objectstore.ErrNotFound)
}
