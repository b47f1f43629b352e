package apigw

import (
	"net/http"
	"slices"
	"testing"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writes is what a handler does to its ResponseWriter: sets headers, a
// status (0: none) and writes each of bodies.
type writes struct {
	headers http.Header
	status  int
	bodies  [][]byte
}

func (ws writes) to(w http.ResponseWriter) {
	for k, v := range ws.headers {
		w.Header()[k] = slices.Clone(v)
	}
	if ws.status != 0 {
		w.WriteHeader(ws.status)
	}
	for _, b := range ws.bodies {
		n, err := w.Write(b)
		if err != nil || n != len(b) {
			panic("a write failed")
		}
	}
}

// assertResponseAsProxy checks that ResponseWriter answers ws as
// aws-lambda-go-api-proxy's ProxyResponseWriterV2 does.
func assertResponseAsProxy(t *testing.T, ws writes) {
	t.Helper()
	proxy := core.NewProxyResponseWriterV2()
	ws.to(proxy)
	want, wantErr := proxy.GetProxyResponse()
	w := NewResponseWriter()
	ws.to(w)
	got, err := w.Response()
	if wantErr != nil {
		assert.Error(t, err, "the proxy fails: %v", wantErr)
		return
	}
	require.NoError(t, err)
	// The proxy gathers the cookies in map order: names that differ in
	// case only give theirs in either order.
	slices.Sort(want.Cookies)
	slices.Sort(got.Cookies)
	assert.Equal(t, want, got)
}

func TestResponseWriter(t *testing.T) {
	tests := map[string]writes{
		"a JSON answer":            {headers: http.Header{"Content-Type": {"application/json"}, "Etag": {`W/"x"`}}, bodies: [][]byte{[]byte(`{"a":1}`)}},
		"a status and no body":     {status: http.StatusNoContent},
		"a status written twice":   {status: http.StatusNotFound, bodies: [][]byte{nil}},
		"nothing written":          {},
		"headers only":             {headers: http.Header{"X-A": {"1"}}},
		"a body in parts":          {bodies: [][]byte{[]byte("<html>"), nil, []byte("</html>")}},
		"an empty first write":     {bodies: [][]byte{{}, []byte("x")}},
		"a body that is not UTF-8": {bodies: [][]byte{{0xff, 0xfe, 'a'}}},
		"UTF-8 split across writes": {headers: http.Header{"Content-Type": {"text/plain"}},
			bodies: [][]byte{[]byte("caf\xc3"), []byte("\xa9")}},
		"cookies": {headers: http.Header{"Set-Cookie": {"a=1", "b=2"}, "set-cookie": {"c=3"}, "Vary": {"A", "B"}},
			status: http.StatusFound},
		"an error status with a body": {status: http.StatusTooManyRequests, headers: http.Header{"Retry-After": {"1"}},
			bodies: [][]byte{[]byte(`{"error":{}}`)}},
	}
	for name, ws := range tests {
		t.Run(name, func(t *testing.T) { assertResponseAsProxy(t, ws) })
	}
}

// ResponseWriter answers whatever a handler writes as the proxy does.
func FuzzResponseWriter(f *testing.F) {
	f.Add(0, "Content-Type", "application/json", "Set-Cookie", "a=1", []byte(`{"a":1}`), []byte(nil))
	f.Add(500, "set-cookie", "x", "X-A", "", []byte{0xff}, []byte("a"))
	f.Fuzz(func(t *testing.T, status int, name1, value1, name2, value2 string, body1, body2 []byte) {
		assertResponseAsProxy(t, writes{headers: http.Header{name1: {value1}, name2: {value2, value1}}, status: status, bodies: [][]byte{body1, body2}})
	})
}
