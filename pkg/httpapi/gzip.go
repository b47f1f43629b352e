package httpapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// gzipWriters are reused: a gzip.Writer holds about 800 KB of state.
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return w
}}

// compress returns body gzip-compressed.
func compress(body []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body)/3 + 64)
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	zw.Write(body)
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (gzip or *, with a q-value above zero).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header["Accept-Encoding"] {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "*" {
				continue
			}
			q := 1.0
			if k, val, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.TrimSpace(k) == "q" {
				if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
					q = f
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// gzipBody chooses the encoding of a non-streaming response body: bodies
// of at least min bytes (min < 0: none) vary by Accept-Encoding and are
// compressed for clients that accept gzip. It sets the headers and returns
// the bytes to write; compressed, when not nil, returns body compressed
// (a document's, compressed once).
func gzipBody(w http.ResponseWriter, r *http.Request, min int, body []byte, compressed func() []byte) []byte {
	if min < 0 || len(body) < min {
		return body
	}
	hdr := w.Header()
	hdr["Vary"] = append(hdr["Vary"], "Accept-Encoding") // a CORS answer varies by Origin too
	if !acceptsGzip(r) {
		return body
	}
	hdr["Content-Encoding"] = []string{"gzip"}
	if compressed != nil {
		return compressed()
	}
	return compress(body)
}
