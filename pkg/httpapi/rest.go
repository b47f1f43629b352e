package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// The HTTP+JSON binding of A2A 0.3, served under /rest/v1 and /rest. Bodies
// and results are the JSON-RPC params and results; errors are
// google.rpc.Status bodies with the spec's HTTP statuses.

func (h *handler) restSend(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	var p a2a.MessageSendParams
	if err := decodeParams(body, &p); err != nil {
		h.restError(w, r, err, "rest send")
		return
	}
	task, err := h.svc.SendMessage(r.Context(), id.Owner, p)
	h.restResult(w, r, task, err, "rest send")
}

func (h *handler) restGet(w http.ResponseWriter, r *http.Request, id auth.Identity) {
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
	task, err := h.svc.GetTask(r.Context(), id.Owner, p)
	h.restResult(w, r, task, err, "rest get")
}

// restTaskAction serves POST /tasks/{id}:cancel (and refuses :subscribe).
func (h *handler) restTaskAction(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	taskID, action, _ := strings.Cut(r.PathValue("id"), ":")
	switch action {
	case "cancel":
		task, err := h.svc.CancelTask(r.Context(), id.Owner, a2a.TaskIDParams{ID: taskID})
		h.restResult(w, r, task, err, "rest cancel")
	case "subscribe":
		h.restError(w, r, errStreaming, "rest subscribe")
	default:
		h.notFound(w, r)
	}
}

func (h *handler) restList(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	q := r.URL.Query()
	p := a2a.ListTasksParams{
		ContextID:            queryStr(q, "contextId", "context_id"),
		Status:               a2a.TaskState(stateFromQuery(queryStr(q, "status"))),
		PageToken:            queryStr(q, "pageToken", "page_token"),
		StatusTimestampAfter: queryStr(q, "statusTimestampAfter", "status_timestamp_after"),
	}
	var err error
	if p.PageSize, err = queryInt(q, "pageSize", "page_size"); err != nil {
		h.restError(w, r, err, "rest list")
		return
	}
	if p.HistoryLength, err = queryInt(q, "historyLength", "history_length"); err != nil {
		h.restError(w, r, err, "rest list")
		return
	}
	if v := queryStr(q, "includeArtifacts", "include_artifacts"); v != "" {
		b, perr := strconv.ParseBool(v)
		if perr != nil {
			h.restError(w, r, a2a.InvalidParams("includeArtifacts", "must be true or false, got %q", v), "rest list")
			return
		}
		p.IncludeArtifacts = b
	}
	res, err := h.svc.ListTasks(r.Context(), id.Owner, p)
	h.restResult(w, r, res, err, "rest list")
}

func (h *handler) restUnsupportedStream(w http.ResponseWriter, r *http.Request, _ auth.Identity) {
	h.restError(w, r, errStreaming, "rest stream")
}

// restSetPushConfig serves POST /tasks/{id}/pushNotificationConfigs. The
// body may be the TaskPushNotificationConfig (as the JSON-RPC params), the
// proto's {"config": TaskPushNotificationConfig}, or a bare
// PushNotificationConfig; the task id comes from the path.
func (h *handler) restSetPushConfig(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	p, err := decodeRESTPushConfig(body, r.PathValue("id"))
	if err != nil {
		h.restError(w, r, err, "rest set push config")
		return
	}
	res, err := h.svc.SetPushConfig(r.Context(), id.Owner, service.ProtocolV03, p)
	h.restResult(w, r, res, err, "rest set push config")
}

func decodeRESTPushConfig(body []byte, taskID string) (a2a.TaskPushNotificationConfig, error) {
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

// restListPushConfigs serves GET /tasks/{id}/pushNotificationConfigs: the
// JSON-RPC result, an array.
func (h *handler) restListPushConfigs(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	res, err := h.svc.ListPushConfigs(r.Context(), id.Owner, a2a.ListTaskPushNotificationConfigParams{ID: r.PathValue("id")})
	h.restResult(w, r, res, err, "rest list push configs")
}

func (h *handler) restGetPushConfig(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	res, err := h.svc.GetPushConfig(r.Context(), id.Owner, a2a.GetTaskPushNotificationConfigParams{ID: r.PathValue("id"), PushNotificationConfigID: r.PathValue("configId")})
	h.restResult(w, r, res, err, "rest get push config")
}

// restDeletePushConfig answers 204 without a body.
func (h *handler) restDeletePushConfig(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	err := h.svc.DeletePushConfig(r.Context(), id.Owner, a2a.DeleteTaskPushNotificationConfigParams{ID: r.PathValue("id"), PushNotificationConfigID: r.PathValue("configId")})
	if err != nil {
		h.restError(w, r, err, "rest delete push config")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) restResult(w http.ResponseWriter, r *http.Request, v any, err error, op string) {
	if err != nil {
		h.restError(w, r, err, op)
		return
	}
	b, err := appendResult(make([]byte, 0, 1024), v)
	if err != nil {
		h.restError(w, r, err, op)
		return
	}
	writeJSON(w, b)
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

// stateFromQuery accepts a 0.3 state ("input-required") or a proto enum
// name ("TASK_STATE_INPUT_REQUIRED").
func stateFromQuery(s string) string {
	if rest, ok := strings.CutPrefix(s, "TASK_STATE_"); ok {
		return strings.ReplaceAll(strings.ToLower(rest), "_", "-")
	}
	return s
}
