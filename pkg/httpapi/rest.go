package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// The HTTP+JSON binding, served under /rest/v1 and /rest (and /rest/
// {tenant}, see stripTenant). The request's A2A-Version chooses the body
// and result shapes (the call's wire); the routes and their parameters are
// the same in both versions. Errors are google.rpc.Status bodies with the
// spec's HTTP statuses. GET and cancel requests ignore their body (the
// official 1.0 client sends "null").

func (h *handler) restSend(w http.ResponseWriter, r *http.Request, c call) {
	body, ok := h.readRESTBody(w, r, "rest send")
	if !ok {
		return
	}
	p, err := c.wire.decodeSend(body)
	if err != nil {
		h.restError(w, r, err, "rest send")
		return
	}
	res, err := h.send(r, c, p)
	if err != nil {
		h.restError(w, r, err, "rest send")
		return
	}
	h.restResult(w, r, c, c.sendResult(res), "rest send")
}

func (h *handler) restGet(w http.ResponseWriter, r *http.Request, c call) {
	taskID := r.PathValue("id")
	if strings.HasSuffix(taskID, ":subscribe") {
		h.restError(w, r, errStreaming, "rest subscribe")
		return
	}
	p := a2a.TaskQueryParams{ID: taskID}
	q := r.URL.Query()
	n, err := queryInt(q, "historyLength", "history_length")
	if err != nil {
		h.restError(w, r, err, "rest get")
		return
	}
	p.HistoryLength = n
	task, err := h.svc.GetTask(r.Context(), c.id.Owner, p)
	restAnswer(h, w, r, c, "rest get", task, err, c.wire.appendTask)
}

// restTaskAction serves POST /tasks/{id}:cancel (and refuses :subscribe).
func (h *handler) restTaskAction(w http.ResponseWriter, r *http.Request, c call) {
	taskID, action, _ := strings.Cut(r.PathValue("id"), ":")
	switch action {
	case "cancel":
		task, err := h.svc.CancelTask(r.Context(), c.id.Owner, a2a.TaskIDParams{ID: taskID})
		restAnswer(h, w, r, c, "rest cancel", task, err, c.wire.appendTask)
	case "subscribe":
		h.restError(w, r, errStreaming, "rest subscribe")
	default:
		h.notFound(w, r)
	}
}

func (h *handler) restList(w http.ResponseWriter, r *http.Request, c call) {
	q := r.URL.Query()
	lq := a2av1.ListTasksQuery{
		ContextID: queryStr(q, "contextId", "context_id"),
		Status:    queryStr(q, "status"),
		PageToken: queryStr(q, "pageToken", "page_token"),
		// lastUpdatedAfter: the name the a2a-go 1.0 REST client sends.
		StatusTimestampAfter: queryStr(q, "statusTimestampAfter", "status_timestamp_after", "lastUpdatedAfter"),
	}
	var err error
	if lq.PageSize, err = queryInt(q, "pageSize", "page_size"); err != nil {
		h.restError(w, r, err, "rest list")
		return
	}
	if lq.HistoryLength, err = queryInt(q, "historyLength", "history_length"); err != nil {
		h.restError(w, r, err, "rest list")
		return
	}
	if v := queryStr(q, "includeArtifacts", "include_artifacts"); v != "" {
		b, perr := strconv.ParseBool(v)
		if perr != nil {
			h.restError(w, r, a2a.InvalidParams("includeArtifacts", "must be true or false, got %q", v), "rest list")
			return
		}
		lq.IncludeArtifacts = b
	}
	p, err := c.wire.listParams(lq)
	if err != nil {
		h.restError(w, r, err, "rest list")
		return
	}
	res, err := h.svc.ListTasks(r.Context(), c.id.Owner, p)
	restAnswer(h, w, r, c, "rest list", res, err, c.wire.appendList)
}

// readRESTBody reads a REST request's body (readBody) and refuses one
// that names a member twice (jsonrpc.CheckMembers), as JSON-RPC requests
// are.
func (h *handler) readRESTBody(w http.ResponseWriter, r *http.Request, op string) ([]byte, bool) {
	body, ok := h.readBody(w, r)
	if !ok {
		return nil, false
	}
	if err := jsonrpc.CheckMembers(body); err != nil {
		h.restError(w, r, err, op)
		return nil, false
	}
	return body, true
}

func (h *handler) restUnsupportedStream(w http.ResponseWriter, r *http.Request, _ call) {
	h.restError(w, r, errStreaming, "rest stream")
}

// restSetPushConfig serves POST /tasks/{id}/pushNotificationConfigs; the
// task id comes from the path, the body is read by the version's wire (see
// decodeRESTPushConfig for 0.3).
func (h *handler) restSetPushConfig(w http.ResponseWriter, r *http.Request, c call) {
	body, ok := h.readRESTBody(w, r, "rest set push config")
	if !ok {
		return
	}
	p, err := c.wire.decodePushConfig(body, r.PathValue("id"))
	if err != nil {
		h.restError(w, r, err, "rest set push config")
		return
	}
	res, err := h.svc.SetPushConfig(r.Context(), c.id.Owner, c.wire.version, p)
	restAnswer(h, w, r, c, "rest set push config", res, err, c.wire.appendPushConfig)
}

// decodeRESTPushConfig reads a 0.3 REST push config body: the
// TaskPushNotificationConfig (as the JSON-RPC params), the proto's
// {"config": TaskPushNotificationConfig}, or a bare PushNotificationConfig.
func decodeRESTPushConfig(body json.RawMessage, taskID string) (a2a.TaskPushNotificationConfig, error) {
	var shape struct {
		Config                 json.RawMessage `json:"config"`
		PushNotificationConfig json.RawMessage `json:"pushNotificationConfig"`
	}
	if err := decodeParams(body, &shape); err != nil {
		return a2a.TaskPushNotificationConfig{}, err
	}
	if len(shape.Config) > 0 {
		body = shape.Config
	}
	var p a2a.TaskPushNotificationConfig
	if len(shape.Config) > 0 || len(shape.PushNotificationConfig) > 0 {
		if err := decodeParams(body, &p); err != nil {
			return p, err
		}
	} else if err := decodeParams(body, &p.PushNotificationConfig); err != nil {
		return p, err
	}
	if p.TaskID != "" && p.TaskID != taskID {
		return p, a2a.InvalidParams("taskId", "%q does not match the task %q of the path", p.TaskID, taskID)
	}
	p.TaskID = taskID
	return p, nil
}

// restListPushConfigs serves GET /tasks/{id}/pushNotificationConfigs: an
// array under 0.3 (the JSON-RPC result), {configs, nextPageToken} under 1.0.
func (h *handler) restListPushConfigs(w http.ResponseWriter, r *http.Request, c call) {
	res, err := h.svc.ListPushConfigs(r.Context(), c.id.Owner, a2a.ListTaskPushNotificationConfigParams{ID: r.PathValue("id")})
	restAnswer(h, w, r, c, "rest list push configs", res, err, c.wire.appendPushList)
}

func (h *handler) restGetPushConfig(w http.ResponseWriter, r *http.Request, c call) {
	res, err := h.svc.GetPushConfig(r.Context(), c.id.Owner, a2a.GetTaskPushNotificationConfigParams{ID: r.PathValue("id"), PushNotificationConfigID: r.PathValue("configId")})
	restAnswer(h, w, r, c, "rest get push config", res, err, c.wire.appendPushConfig)
}

// restDeletePushConfig answers 200 with {} (google.protobuf.Empty): the
// official clients of both versions (a2a-go v2.3.1, native and in 0.3
// mode) take any other status for an error.
func (h *handler) restDeletePushConfig(w http.ResponseWriter, r *http.Request, c call) {
	err := h.svc.DeletePushConfig(r.Context(), c.id.Owner, a2a.DeleteTaskPushNotificationConfigParams{ID: r.PathValue("id"), PushNotificationConfigID: r.PathValue("configId")})
	if err != nil {
		h.restError(w, r, err, "rest delete push config")
		return
	}
	h.writeBody(w, r, restContentType, a2av1.Empty)
}

// restContentType is the media type of HTTP+JSON responses of both
// versions: A2A 1.0 (section 11) answers application/json too; only push
// notification bodies of 1.0 configs are application/a2a+json.
const restContentType = "application/json"

// restResult writes a result in the call's version.
func (h *handler) restResult(w http.ResponseWriter, r *http.Request, c call, v appender, op string) {
	buf := h.answers.Get()
	b, err := v.AppendJSON(*buf)
	if err == nil {
		err = h.writeResult(w, r, restContentType, b)
	}
	h.answers.Put(buf, b)
	if err != nil {
		h.restError(w, r, err, op)
	}
}

// restAnswer answers a service call: its result v written by enc, or its
// error err.
func restAnswer[R any](h *handler, w http.ResponseWriter, r *http.Request, c call, op string, v R, err error, enc func([]byte, R) ([]byte, error)) {
	if err != nil {
		h.restError(w, r, err, op)
		return
	}
	h.restResult(w, r, c, encoded[R]{v, enc}, op)
}

func (h *handler) restError(w http.ResponseWriter, r *http.Request, err error, op string) {
	writeRESTError(w, h.protocolError(r.Context(), err, op))
}

// queryStr returns the first non-empty value among names.
func queryStr(q url.Values, names ...string) string {
	for _, n := range names {
		if v := q.Get(n); v != "" {
			return v
		}
	}
	return ""
}

func queryInt(q url.Values, names ...string) (*int, error) {
	v := queryStr(q, names...)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, a2a.InvalidParams(names[0], "must be an integer, got %q", v)
	}
	return &n, nil
}

// restListDeliveries serves GET /tasks/{id}/deliveries (the delivery log
// extension; the same result in both versions).
func (h *handler) restListDeliveries(w http.ResponseWriter, r *http.Request, c call) {
	q := r.URL.Query()
	p := a2a.ListDeliveriesParams{TaskID: r.PathValue("id"), PageToken: queryStr(q, "pageToken", "page_token")}
	n, err := queryInt(q, "pageSize", "page_size")
	if err != nil {
		h.restError(w, r, err, "rest list deliveries")
		return
	}
	p.PageSize = n
	res, err := h.svc.ListDeliveries(r.Context(), c.id.Owner, p)
	restAnswer(h, w, r, c, "rest list deliveries", res, err, asJSON[*a2a.ListDeliveriesResult])
}

// restRedriveDeliveries serves POST /tasks/{id}/deliveries:redrive, whose
// body, {"eventId", "configId"} (both optional; an empty body redrives
// every failed delivery of the task), names what to redrive.
func (h *handler) restRedriveDeliveries(w http.ResponseWriter, r *http.Request, c call) {
	body, ok := h.readRESTBody(w, r, "rest redrive deliveries")
	if !ok {
		return
	}
	var p a2a.RedriveDeliveriesParams
	if b := bytes.TrimSpace(body); len(b) > 0 && string(b) != "null" {
		if err := decodeParams(body, &p); err != nil {
			h.restError(w, r, err, "rest redrive deliveries")
			return
		}
	}
	if p.TaskID != "" && p.TaskID != r.PathValue("id") {
		h.restError(w, r, a2a.InvalidParams("taskId", "%q does not match the task %q of the path", p.TaskID, r.PathValue("id")), "rest redrive deliveries")
		return
	}
	p.TaskID = r.PathValue("id")
	res, err := h.svc.RedriveDeliveries(r.Context(), c.id.Owner, p)
	restAnswer(h, w, r, c, "rest redrive deliveries", res, err, asJSON[*a2a.RedriveDeliveriesResult])
}

// restCreateUpload serves POST /files (the files extension), whose body
// is files/createUpload's params.
func (h *handler) restCreateUpload(w http.ResponseWriter, r *http.Request, c call) {
	body, ok := h.readRESTBody(w, r, "rest create upload")
	if !ok {
		return
	}
	var p a2a.FileUploadParams
	if err := decodeParams(body, &p); err != nil {
		h.restError(w, r, err, "rest create upload")
		return
	}
	res, err := h.svc.CreateUpload(r.Context(), c.id.Owner, p)
	restAnswer(h, w, r, c, "rest create upload", res, err, asJSON[*a2a.FileUploadResult])
}

// asJSON is appendJSON for a result of type R: the results of extension
// routes, the same in every version.
func asJSON[R any](b []byte, v R) ([]byte, error) { return appendJSON(b, v) }
