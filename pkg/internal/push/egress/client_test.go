package egress

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func post(t *testing.T, c *http.Client, target string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, target, strings.NewReader("{}"))
	require.NoError(t, err)
	resp, err := c.Do(req)
	if resp != nil {
		t.Cleanup(func() { _ = resp.Body.Close() })
	}
	return resp, err
}

// TestClientRefusesResolvedLoopback: "localhost" is a name; only the
// resolved address (127.0.0.1) shows it is local. The production client
// refuses the connection and the server never sees a request.
func TestClientRefusesResolvedLoopback(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	byName := "http://localhost:" + u.Port() + "/hook"

	_, err = post(t, NewClient(Policy{}, 0), byName)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), "127.0.0.1 is a loopback address")

	_, err = post(t, NewClient(Policy{}, 0), srv.URL)
	assert.ErrorIs(t, err, ErrRefused)
	assert.Zero(t, hits.Load())

	// The local-development switch lets the same request through.
	resp, err := post(t, NewClient(Policy{AllowInsecure: true}, 0), byName)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 1, hits.Load())
}

// TestClientDoesNotFollowRedirects: a webhook that redirects to the
// metadata service gets its 3xx back; nothing follows it (and were it
// followed, both the URL check and the dial guard refuse the target).
func TestClientDoesNotFollowRedirects(t *testing.T) {
	const metadata = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.Redirect(w, r, metadata, code)
		}))
		resp, err := post(t, NewClient(Policy{AllowInsecure: true}, 0), srv.URL)
		srv.Close()
		require.NoError(t, err)
		assert.Equal(t, code, resp.StatusCode)
		assert.Equal(t, metadata, resp.Header.Get("Location"))
		assert.EqualValues(t, 1, hits.Load())
	}
	for _, p := range []Policy{{}, {AllowInsecure: true}} {
		_, err := p.CheckURL(metadata)
		assert.ErrorIs(t, err, ErrRefused)
		assert.ErrorIs(t, p.Control("tcp4", "169.254.169.254:80", nil), ErrRefused)
	}
}

func TestClientSettings(t *testing.T) {
	c := NewClient(Policy{}, 0)
	assert.Equal(t, DefaultTimeout, c.Timeout)
	tr, ok := c.Transport.(*http.Transport)
	require.True(t, ok)
	assert.Nil(t, tr.Proxy, "an environment proxy would bypass the dial guard")
	assert.Equal(t, 3*DefaultTimeout, NewClient(Policy{}, 3*DefaultTimeout).Timeout)
}
