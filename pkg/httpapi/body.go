package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// readBody reads the request body, answering 413 (before any parsing) when
// it is larger than the limit.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > h.maxBody {
		h.tooLarge(w, r.ContentLength)
		return nil, false
	}
	var (
		body []byte
		err  error
	)
	if r.ContentLength >= 0 {
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
		if int64(len(body)) > h.maxBody {
			h.tooLarge(w, -1)
			return nil, false
		}
	}
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "could not read the request body: "+err.Error())
		return nil, false
	}
	return body, true
}

func (h *handler) tooLarge(w http.ResponseWriter, size int64) {
	msg := fmt.Sprintf("request body exceeds the limit of %d bytes (A2A_MAX_REQUEST_BODY_BYTES)", h.maxBody)
	if size > 0 {
		msg = fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes (A2A_MAX_REQUEST_BODY_BYTES)", size, h.maxBody)
	}
	msg += "; upload larger files first (" + a2a.MethodFilesCreateUpload + ") and send their URI"
	writeHTTPError(w, http.StatusRequestEntityTooLarge, "RESOURCE_EXHAUSTED", msg)
}

// writeResult writes a result like writeBody, unless the body, as the
// transport would carry it (Options.ResponseSize), exceeds
// Options.MaxResponseBytes: then it writes nothing and returns a typed
// error, which the caller answers in its binding's shape.
func (h *handler) writeResult(w http.ResponseWriter, r *http.Request, contentType string, body []byte) error {
	out := gzipBody(w, r, h.gzipMin, body, nil)
	// A body of n bytes takes at most 6n+2 bytes (ResponseSize's
	// escapes, and quotes), so only a large one needs measuring.
	if h.maxResponse > 0 && len(out) > (h.maxResponse-2)/6 {
		if n := h.responseSize(out); n > h.maxResponse {
			delete(w.Header(), "Content-Encoding")
			return responseTooLarge(n, h.maxResponse)
		}
	}
	writeWhole(w, contentTypeHeader(contentType), out, nil)
	return nil
}

// responseTooLarge is the error of a result too large to send: what the
// client can do about it.
func responseTooLarge(size, limit int) *a2a.Error {
	return &a2a.Error{Code: a2a.CodeInvalidParams, Message: fmt.Sprintf(
		"the response would take %d bytes, above this server's limit of %d (AWS Lambda returns at most 6 MB): ask for less, e.g. "+
			"tasks/get with a smaller historyLength, tasks/list with a smaller pageSize or historyLength", size, limit)}
}

// jsonHeader is the Content-Type header value of JSON bodies, shared by
// every response's header map (net/http replaces or copies a header's
// values, never changes them in place): one allocation less per request.
var jsonHeader = []string{"application/json"}

// contentTypeHeader is the header value of a content type.
func contentTypeHeader(contentType string) []string {
	if contentType == "application/json" {
		return jsonHeader
	}
	return []string{contentType}
}

// writeBody writes a 200 response, gzip-compressed when it is large and
// the client accepts it.
func (h *handler) writeBody(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	writeWhole(w, contentTypeHeader(contentType), gzipBody(w, r, h.gzipMin, body, nil), nil)
}

// writeWhole writes a body held whole (as gzipBody made it) with its
// Content-Type, and, above net/http's 2 KiB buffer, its length: without
// one net/http sends such a body in chunks (a body that fits the buffer
// gets its length from net/http, which costs no allocation of ours).
// length, when set, is the body's Content-Length value, made once.
func writeWhole(w http.ResponseWriter, contentType []string, body []byte, length []string) {
	hdr := w.Header()
	hdr["Content-Type"] = contentType
	if length == nil && len(body) > chunkingSize {
		length = []string{strconv.Itoa(len(body))}
	}
	if length != nil {
		hdr["Content-Length"] = length
	}
	w.Write(body)
}

// chunkingSize is the largest body net/http gives a length of its own
// (its bufferBeforeChunkingSize).
const chunkingSize = 2048

// decodeParams decodes request params (or a REST body) into v, accepting
// snake_case field names as proto-JSON parsers do: some official 0.3 clients
// send them. Free-form maps (metadata, data) are left as they are.
func decodeParams(raw json.RawMessage, v any) error {
	return jsonrpc.DecodeParams(camelCase(raw), v)
}

// decodeSend03 reads message/send's params (A2A 0.3) as
// a2a.DecodeMessageSendParams with decodeParams does (see readFirst).
func decodeSend03(raw json.RawMessage) (a2a.MessageSendParams, error) {
	return readFirst(raw, a2a.ReadMessageSendParams, func(raw json.RawMessage) (a2a.MessageSendParams, error) {
		return a2a.DecodeMessageSendParams(raw, decodeParams)
	})
}

// decodeTaskQuery reads tasks/get's params (A2A 0.3) as decodeParams
// does (see readFirst).
func decodeTaskQuery(raw json.RawMessage) (a2a.TaskQueryParams, error) {
	return readFirst(raw, a2a.ReadTaskQueryParams, func(raw json.RawMessage) (p a2a.TaskQueryParams, err error) {
		err = decodeParams(raw, &p)
		return p, err
	})
}

// readFirst reads raw with read, in one pass without reflection, when the
// params are in the shape clients send and no name in them is snake_case
// (which decodeParams rewrites, and re-encodes the params for: the
// readers read them as they are); decode reads the rest.
func readFirst[T any](raw json.RawMessage, read func(json.RawMessage) (T, bool), decode func(json.RawMessage) (T, error)) (T, error) {
	if !hasSnakeKey(raw) {
		if p, ok := read(raw); ok {
			return p, nil
		}
	}
	return decode(raw)
}

// camelCase returns raw with snake_case keys rewritten as camelCase, as
// ProtoJSON parsers accept both spellings (raw itself when it has none).
func camelCase(raw json.RawMessage) json.RawMessage {
	if hasSnakeKey(raw) {
		if c, err := camelCaseKeys(raw); err == nil {
			return c
		}
	}
	return raw
}

// hasSnakeKey reports whether an object key of raw holds an underscore.
// Values may (ROLE_USER, TASK_STATE_WORKING): they do not count.
func hasSnakeKey(raw []byte) bool {
	if bytes.IndexByte(raw, '_') < 0 {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		underscore := false
		j := i + 1
		for ; j < len(raw) && raw[j] != '"'; j++ {
			switch raw[j] {
			case '\\':
				j++
			case '_':
				underscore = true
			}
		}
		i = j
		if !underscore {
			continue
		}
		k := j + 1
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
			k++
		}
		if k < len(raw) && raw[k] == ':' {
			return true
		}
	}
	return false
}

// camelCaseKeys rewrites snake_case object keys to camelCase, except inside
// metadata and data values.
func camelCaseKeys(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(camelWalk(v))
}

func camelWalk(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			ck := snakeToCamel(k)
			if ck == "metadata" || ck == "data" {
				out[ck] = val
				continue
			}
			out[ck] = camelWalk(val)
		}
		return out
	case []any:
		for i := range t {
			t[i] = camelWalk(t[i])
		}
		return t
	}
	return v
}

func snakeToCamel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	upper := false
	for i, r := range s {
		switch {
		case r == '_' && i > 0:
			upper = true
		case upper && r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
			upper = false
		default:
			b.WriteRune(r)
			upper = false
		}
	}
	return b.String()
}
