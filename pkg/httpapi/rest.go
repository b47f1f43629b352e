package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/a2av1"
)

// The HTTP+JSON binding, served under /rest/v1 and /rest (and /rest/
// {tenant}, see stripTenant). The request's A2A-Version chooses the body
// and result shapes (the call's wire); the routes and their parameters are
// the same in both versions. Errors are google.rpc.Status bodies with the
// spec's HTTP statuses. GET and cancel requests ignore their body (the
// official 1.0 client sends "null").

func (h *handler) restSend(w http.ResponseWriter, r *http.Request, c call) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	p, err := c.wire.decodeSend(body)
	if err != nil {
		h.restError(w, r, err, "rest send")
		return
	}
	task, err := h.svc.SendMessage(r.Context(), c.id.Owner, p)
	if err != nil {
		h.restError(w, r, err, "rest send")
		return
	}
	h.restResult(w, r, c, encoded[*a2a.Task]{task, c.wire.appendSendResult}, "rest send")
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
	if err != nil {
		h.restError(w, r, err, "rest get")
		return
	}
	h.restResult(w, r, c, encoded[*a2a.Task]{task, c.wire.appendTask}, "rest get")
}

// restTaskAction serves POST /tasks/{id}:cancel (and refuses :subscribe).
func (h *handler) restTaskAction(w http.ResponseWriter, r *http.Request, c call) {
	taskID, action, _ := strings.Cut(r.PathValue("id"), ":")
	switch action {
	case "cancel":
		task, err := h.svc.CancelTask(r.Context(), c.id.Owner, a2a.TaskIDParams{ID: taskID})
		if err != nil {
			h.restError(w, r, err, "rest cancel")
			return
		}
		h.restResult(w, r, c, encoded[*a2a.Task]{task, c.wire.appendTask}, "rest cancel")
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
	if err != nil {
		h.restError(w, r, err, "rest list")
		return
	}
	h.restResult(w, r, c, encoded[*a2a.ListTasksResult]{res, c.wire.appendList}, "rest list")
}

func (h *handler) restUnsupportedStream(w http.ResponseWriter, r *http.Request, _ call) {
	h.restError(w, r, errStreaming, "rest stream")
}

func (h *handler) restPushUnsupported(w http.ResponseWriter, r *http.Request, _ call) {
	h.restError(w, r, errPush, "rest push config")
}

// restResult writes a result in the call's version.
func (h *handler) restResult(w http.ResponseWriter, r *http.Request, c call, v appender, op string) {
	b, err := v.AppendJSON(make([]byte, 0, 1024))
	if err != nil {
		h.restError(w, r, err, op)
		return
	}
	h.writeBody(w, r, c.wire.contentType, b)
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
