package apigw

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// ResponseWriter is the http.ResponseWriter of a request NewHTTPRequest
// made: it keeps the status, headers and body a handler writes, and
// Response turns them into the response API Gateway takes, as
// aws-lambda-go-api-proxy's ProxyResponseWriterV2 and its
// GetProxyResponse do (TestResponseWriter and FuzzResponseWriter hold the
// two equal). The body is copied once, into the response's string, where
// the proxy copies it into a buffer and then out of it.
type ResponseWriter struct {
	header http.Header
	status int
	// body is what was written, while it was written at once (the
	// usual case); more holds it when it came in parts.
	body string
	more []byte
}

// noStatus is the status of a ResponseWriter nothing was written to.
const noStatus = -1

// NewResponseWriter returns an empty ResponseWriter.
func NewResponseWriter() *ResponseWriter {
	return &ResponseWriter{header: http.Header{}, status: noStatus}
}

// Header implements http.ResponseWriter.
func (w *ResponseWriter) Header() http.Header { return w.header }

// WriteHeader implements http.ResponseWriter: the last status written is
// the response's.
func (w *ResponseWriter) WriteHeader(status int) { w.status = status }

// Write implements http.ResponseWriter. The first write sets the status
// to 200 when none was, and each one without a Content-Type sets the one
// http.DetectContentType finds.
func (w *ResponseWriter) Write(b []byte) (int, error) {
	if w.status == noStatus {
		w.status = http.StatusOK
	}
	if w.header.Get("Content-Type") == "" {
		w.header.Add("Content-Type", http.DetectContentType(b))
	}
	if w.more == nil && w.body == "" {
		w.body = string(b)
		return len(b), nil
	}
	if w.more == nil {
		w.more = []byte(w.body)
	}
	w.more = append(w.more, b...)
	return len(b), nil
}

// Response is what was written as an HTTP API response: the body as it
// is when it is UTF-8, else in base64; each header's values joined with
// commas, but Set-Cookie's, which are the response's cookies. It fails
// when the handler wrote neither a status nor a body.
func (w *ResponseWriter) Response() (events.APIGatewayV2HTTPResponse, error) {
	if w.status == noStatus {
		return events.APIGatewayV2HTTPResponse{}, errors.New("the handler wrote no status and no body")
	}
	body := w.body
	if w.more != nil {
		body = string(w.more)
	}
	encoded := !utf8.ValidString(body)
	if encoded {
		body = base64.StdEncoding.EncodeToString([]byte(body))
	}
	headers := make(map[string]string, len(w.header))
	cookies := []string{}
	for k, v := range w.header {
		if strings.EqualFold(k, "Set-Cookie") {
			cookies = append(cookies, v...)
			continue
		}
		headers[k] = strings.Join(v, ",")
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: w.status, Headers: headers, Body: body, IsBase64Encoded: encoded, Cookies: cookies}, nil
}
