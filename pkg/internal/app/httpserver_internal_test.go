package app

import (
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
)

// TestHTTPServerIsHTTP1Only: the local server speaks HTTP/1.1 (plain
// HTTP: no TLS for HTTP/2, and no h2c), so serving configures no HTTP/2
// (net/http's default Server fills TLSNextProto and TLSConfig for it when
// Serve starts).
func TestHTTPServerIsHTTP1Only(t *testing.T) {
	hc, err := config.LoadHTTP(func(string) string { return "" })
	require.NoError(t, err)
	hs := httpServer(hc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		hs.Close()
		<-served
	})

	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, "HTTP/1.1", string(body))
	assert.True(t, hs.Protocols.HTTP1())
	assert.False(t, hs.Protocols.HTTP2())
	assert.False(t, hs.Protocols.UnencryptedHTTP2())
	assert.Nil(t, hs.TLSNextProto, "no HTTP/2 was configured")
	assert.Nil(t, hs.TLSConfig)
}
