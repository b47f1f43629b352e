// Package objectstoretest is the contract suite every objectstore.Store
// must pass.
package objectstoretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
)

// Options say what the store under test enforces.
type Options struct {
	// Strict: its presigned URLs are checked (signature, expiry, signed
	// headers and length), as S3 and the folder check them. moto's S3
	// checks none of it.
	Strict bool
	// Expire, for a strict store, moves its clock past a URL's lifetime.
	Expire func(d time.Duration)
}

// Run runs the suite against stores made by newStore (a fresh, empty one
// per test).
func Run(t *testing.T, newStore func(t *testing.T) objectstore.Store, o Options) {
	t.Run("round trip", func(t *testing.T) { testRoundTrip(t, newStore(t)) })
	t.Run("not found", func(t *testing.T) { testNotFound(t, newStore(t)) })
	t.Run("invalid keys", func(t *testing.T) { testInvalidKeys(t, newStore(t)) })
	t.Run("presigned get", func(t *testing.T) { testPresignedGet(t, newStore(t), o) })
	t.Run("presigned put", func(t *testing.T) { testPresignedPut(t, newStore(t), o) })
}

// Hash is the hex SHA-256 of b.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func testRoundTrip(t *testing.T, s objectstore.Store) {
	ctx := context.Background()
	content := bytes.Repeat([]byte("0123456789abcdef"), 70000) // 1.1 MB
	o := objectstore.PutOptions{ContentType: "application/pdf", SHA256: Hash(content), Metadata: map[string]string{"owner": "c0ffee", "name-b64": "cmVwb3J0LnBkZg"}}
	require.NoError(t, s.Put(ctx, "files/o1/a", bytes.NewReader(content), int64(len(content)), o))

	in, err := s.Head(ctx, "files/o1/a")
	require.NoError(t, err)
	assert.Equal(t, int64(len(content)), in.Size)
	assert.Equal(t, "application/pdf", in.ContentType)
	assert.Equal(t, Hash(content), in.SHA256, "a Put's SHA-256 is reported")
	assert.Equal(t, o.Metadata, in.Metadata)

	rc, in2, err := s.Get(ctx, "files/o1/a")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	assert.Equal(t, content, got)
	assert.Equal(t, in, in2)

	// Replaced whole.
	require.NoError(t, s.Put(ctx, "files/o1/a", strings.NewReader("short"), 5, objectstore.PutOptions{ContentType: "text/plain", SHA256: Hash([]byte("short"))}))
	in, err = s.Head(ctx, "files/o1/a")
	require.NoError(t, err)
	assert.Equal(t, int64(5), in.Size)
	assert.Empty(t, in.Metadata)

	require.NoError(t, s.Delete(ctx, "files/o1/a"))
	_, err = s.Head(ctx, "files/o1/a")
	assert.ErrorIs(t, err, objectstore.ErrNotFound)
}

func testNotFound(t *testing.T, s objectstore.Store) {
	ctx := context.Background()
	_, err := s.Head(ctx, "files/none")
	assert.ErrorIs(t, err, objectstore.ErrNotFound)
	_, _, err = s.Get(ctx, "files/none")
	assert.ErrorIs(t, err, objectstore.ErrNotFound)
	assert.NoError(t, s.Delete(ctx, "files/none"), "deleting a missing object is fine")
}

func testInvalidKeys(t *testing.T, s objectstore.Store) {
	ctx := context.Background()
	for _, key := range []string{"", "../etc/passwd", "a//b", "/a", "a/", "a b", "a?b", "a/./b"} {
		assert.Error(t, s.Put(ctx, key, strings.NewReader("x"), 1, objectstore.PutOptions{}), "%q", key)
		_, err := s.Head(ctx, key)
		assert.Error(t, err, "%q", key)
		assert.NotErrorIs(t, err, objectstore.ErrNotFound, "%q is refused, not looked for", key)
		_, err = s.PresignGet(ctx, key, time.Minute)
		assert.Error(t, err, "%q", key)
	}
}

func testPresignedGet(t *testing.T, s objectstore.Store, o Options) {
	ctx := context.Background()
	content := []byte(`{"chart":[1,2,3]}`)
	require.NoError(t, s.Put(ctx, "files/o1/g", bytes.NewReader(content), int64(len(content)), objectstore.PutOptions{ContentType: "application/json", SHA256: Hash(content)}))
	u, err := s.PresignGet(ctx, "files/o1/g", 15*time.Minute)
	require.NoError(t, err)
	resp, err := http.Get(u)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.Equal(t, content, body)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	if !o.Strict {
		return
	}
	resp, err = http.Get(strings.Replace(u, "files/o1/g", "files/o1/h", 1))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a URL signed for another key")

	o.Expire(16 * time.Minute)
	resp, err = http.Get(u)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, strings.ToLower(string(body)), "expired", "the body says why")
}

func put(t *testing.T, u string, h http.Header, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(body))
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

func testPresignedPut(t *testing.T, s objectstore.Store, o Options) {
	ctx := context.Background()
	content := bytes.Repeat([]byte{0, 1, 2, 254, 255}, 40000)
	po := objectstore.PutOptions{ContentType: "image/png", SHA256: Hash(content), Metadata: map[string]string{"owner": "c0ffee"}}
	u, h, err := s.PresignPut(ctx, "files/o1/up", int64(len(content)), po, 15*time.Minute)
	require.NoError(t, err)
	assert.NotContains(t, h, "Authorization", "the URL carries the signature")

	if o.Strict {
		other := bytes.Clone(content)
		other[0] = 9
		code, body := put(t, u, h, other)
		assert.Equal(t, http.StatusBadRequest, code, "other content of the same size is refused: %s", body)
		code, body = put(t, u, h, content[:len(content)-1])
		assert.GreaterOrEqual(t, code, 400, "content of another size is refused: %s", body)
		_, err = s.Head(ctx, "files/o1/up")
		assert.ErrorIs(t, err, objectstore.ErrNotFound, "nothing refused is stored")
	}

	code, body := put(t, u, h, content)
	require.Equal(t, http.StatusOK, code, body)
	in, err := s.Head(ctx, "files/o1/up")
	require.NoError(t, err)
	assert.Equal(t, int64(len(content)), in.Size)
	assert.Equal(t, "image/png", in.ContentType)
	assert.Equal(t, po.Metadata, in.Metadata)
	if in.SHA256 != "" {
		assert.Equal(t, po.SHA256, in.SHA256, "a SHA-256 reported is the content's")
	}
	rc, _, err := s.Get(ctx, "files/o1/up")
	require.NoError(t, err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	assert.Equal(t, content, got)

	if o.Strict {
		o.Expire(16 * time.Minute)
		code, body = put(t, u, h, content)
		assert.Equal(t, http.StatusForbidden, code)
		assert.Contains(t, strings.ToLower(body), "expired")
	}
}
