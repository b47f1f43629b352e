package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

// protocol is one protocol version's wire: the operation and encoded
// params of each request, and the decoding of each answer. The 0.3 wire is
// package a2a's codec, the 1.0 wire package a2av1's: the same code the
// server reads and writes each version with.
type protocol interface {
	sendMessage(p a2a.MessageSendParams) (operation, json.RawMessage, error)
	sendResult(raw json.RawMessage) (*SendResult, error)
	getTask(p a2a.TaskQueryParams) (operation, json.RawMessage, error)
	cancelTask(p a2a.TaskIDParams) (operation, json.RawMessage, error)
	task(raw json.RawMessage) (*a2a.Task, error)
	listTasks(p a2a.ListTasksParams) (operation, json.RawMessage, error)
	taskList(raw json.RawMessage) (*a2a.ListTasksResult, error)
	extendedCard() (operation, json.RawMessage, error)
	setPushConfig(c a2a.TaskPushNotificationConfig) (operation, json.RawMessage, error)
	getPushConfig(p a2a.GetTaskPushNotificationConfigParams) (operation, json.RawMessage, error)
	pushConfig(raw json.RawMessage) (*a2a.TaskPushNotificationConfig, error)
	listPushConfigs(taskID string) (operation, json.RawMessage, error)
	pushConfigList(raw json.RawMessage) ([]a2a.TaskPushNotificationConfig, error)
	deletePushConfig(p a2a.DeleteTaskPushNotificationConfigParams) (operation, json.RawMessage, error)
}

// newProtocol returns the wire of version v (0.3 or 1.0), with tenant
// copied into every 1.0 request.
func newProtocol(v a2a.Version, tenant string) protocol {
	if v == a2a.V10 {
		return v10{tenant: tenant}
	}
	return v03{}
}

// The REST paths both versions share.
func taskPath(id string) string { return "/tasks/" + url.PathEscape(id) }

func pushConfigsPath(taskID string) string { return taskPath(taskID) + "/pushNotificationConfigs" }

func pushConfigPath(taskID, id string) string {
	return pushConfigsPath(taskID) + "/" + url.PathEscape(id)
}

func historyQuery(n *int) url.Values {
	if n == nil {
		return nil
	}
	return url.Values{"historyLength": {strconv.Itoa(*n)}}
}

// listQuery is ListTasks as REST query parameters; status is the state as
// the version names it.
func listQuery(p a2a.ListTasksParams, status string) url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("contextId", p.ContextID)
	set("status", status)
	set("pageToken", p.PageToken)
	set("statusTimestampAfter", p.StatusTimestampAfter)
	if p.PageSize != nil {
		set("pageSize", strconv.Itoa(*p.PageSize))
	}
	if p.HistoryLength != nil {
		set("historyLength", strconv.Itoa(*p.HistoryLength))
	}
	if p.IncludeArtifacts {
		set("includeArtifacts", "true")
	}
	return q
}

// with returns the request of op with the params encoded as b, or err.
func with(op operation) func(b []byte, err error) (operation, json.RawMessage, error) {
	return func(b []byte, err error) (operation, json.RawMessage, error) {
		if err != nil {
			return op, nil, fmt.Errorf("%s: encode request: %w", op.method, err)
		}
		return op, b, nil
	}
}

// v03 is the A2A 0.3 wire.
type v03 struct{}

func decode[T any](what string, raw json.RawMessage) (*T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	return &v, nil
}

func (v03) sendMessage(p a2a.MessageSendParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodMessageSend, verb: http.MethodPost, path: "/message:send"})(p.AppendJSON(nil))
}

// sendResult reads a 0.3 send result: a Task or a Message, possibly
// wrapped in {"task"} / {"message"} as the 0.3 REST binding specifies.
func (v03) sendResult(raw json.RawMessage) (*SendResult, error) {
	ev, err := a2a.DecodeEvent(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("message/send: decode result: %w (%s)", err, snippet(raw))
	case ev.Task == nil && ev.Message == nil:
		return nil, fmt.Errorf("message/send: the result is neither a task nor a message: %s", snippet(raw))
	}
	return &SendResult{Task: ev.Task, Message: ev.Message}, nil
}

func (v03) getTask(p a2a.TaskQueryParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodTasksGet, verb: http.MethodGet, path: taskPath(p.ID), query: historyQuery(p.HistoryLength)})(json.Marshal(p))
}

func (v03) cancelTask(p a2a.TaskIDParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodTasksCancel, verb: http.MethodPost, path: taskPath(p.ID) + ":cancel"})(json.Marshal(p))
}

func (v03) task(raw json.RawMessage) (*a2a.Task, error) { return decode[a2a.Task]("task", raw) }

func (v03) listTasks(p a2a.ListTasksParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodTasksList, verb: http.MethodGet, path: "/tasks", query: listQuery(p, string(p.Status))})(json.Marshal(p))
}

func (v03) taskList(raw json.RawMessage) (*a2a.ListTasksResult, error) {
	r, err := decode[a2a.ListTasksResult]("task list", raw)
	if err == nil && r.Tasks == nil {
		r.Tasks = []a2a.Task{}
	}
	return r, err
}

func (v03) extendedCard() (operation, json.RawMessage, error) {
	return operation{method: a2a.MethodGetExtendedCard, verb: http.MethodGet, path: "/card"}, nil, nil
}

func (v03) setPushConfig(c a2a.TaskPushNotificationConfig) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodPushConfigSet, verb: http.MethodPost, path: pushConfigsPath(c.TaskID)})(json.Marshal(c))
}

func (v03) getPushConfig(p a2a.GetTaskPushNotificationConfigParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodPushConfigGet, verb: http.MethodGet, path: pushConfigPath(p.ID, p.PushNotificationConfigID)})(json.Marshal(p))
}

func (v03) pushConfig(raw json.RawMessage) (*a2a.TaskPushNotificationConfig, error) {
	return decode[a2a.TaskPushNotificationConfig]("push notification config", raw)
}

func (v03) listPushConfigs(taskID string) (operation, json.RawMessage, error) {
	op := operation{method: a2a.MethodPushConfigList, verb: http.MethodGet, path: pushConfigsPath(taskID)}
	return with(op)(json.Marshal(a2a.ListTaskPushNotificationConfigParams{ID: taskID}))
}

func (v03) pushConfigList(raw json.RawMessage) ([]a2a.TaskPushNotificationConfig, error) {
	return decodePushList03(raw)
}

func (v03) deletePushConfig(p a2a.DeleteTaskPushNotificationConfigParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2a.MethodPushConfigDelete, verb: http.MethodDelete, path: pushConfigPath(p.ID, p.PushNotificationConfigID)})(json.Marshal(p))
}

// v10 is the A2A 1.0 wire (package a2av1).
type v10 struct{ tenant string }

func (v v10) sendMessage(p a2a.MessageSendParams) (operation, json.RawMessage, error) {
	return with(operation{method: a2av1.MethodSendMessage, verb: http.MethodPost, path: "/message:send"})(a2av1.EncodeSendMessageRequest(v.tenant, p))
}

func (v10) sendResult(raw json.RawMessage) (*SendResult, error) {
	t, m, err := a2av1.DecodeSendResult(raw)
	if err != nil {
		return nil, err
	}
	return &SendResult{Task: t, Message: m}, nil
}

func (v v10) getTask(p a2a.TaskQueryParams) (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodGetTask, verb: http.MethodGet, path: taskPath(p.ID), query: historyQuery(p.HistoryLength)}
	return with(op)(a2av1.EncodeGetTaskRequest(v.tenant, p))
}

func (v v10) cancelTask(p a2a.TaskIDParams) (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodCancelTask, verb: http.MethodPost, path: taskPath(p.ID) + ":cancel"}
	return with(op)(a2av1.EncodeCancelTaskRequest(v.tenant, p))
}

func (v10) task(raw json.RawMessage) (*a2a.Task, error) { return a2av1.DecodeTask(raw) }

func (v v10) listTasks(p a2a.ListTasksParams) (operation, json.RawMessage, error) {
	status := ""
	if p.Status != "" {
		// No filter is sent as TASK_STATE_UNSPECIFIED: a state 1.0 lacks
		// must not turn into it, and list everything.
		if status = a2av1.State(p.Status); status == a2av1.State(a2a.TaskStateUnknown) {
			return operation{}, nil, fmt.Errorf("%w: A2A 1.0 has no task state %q to list by", ErrNotExpressible, p.Status)
		}
	}
	op := operation{method: a2av1.MethodListTasks, verb: http.MethodGet, path: "/tasks", query: listQuery(p, status)}
	return with(op)(a2av1.EncodeListTasksRequest(v.tenant, p))
}

func (v10) taskList(raw json.RawMessage) (*a2a.ListTasksResult, error) {
	return a2av1.DecodeListTasksResponse(raw)
}

func (v v10) extendedCard() (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodGetExtendedAgentCard, verb: http.MethodGet, path: "/extendedAgentCard"}
	return with(op)(a2av1.EncodeTenantRequest(v.tenant))
}

func (v v10) setPushConfig(c a2a.TaskPushNotificationConfig) (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodCreatePushConfig, verb: http.MethodPost, path: pushConfigsPath(c.TaskID)}
	return with(op)(a2av1.EncodePushConfig(v.tenant, c))
}

func (v v10) getPushConfig(p a2a.GetTaskPushNotificationConfigParams) (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodGetPushConfig, verb: http.MethodGet, path: pushConfigPath(p.ID, p.PushNotificationConfigID)}
	return with(op)(a2av1.EncodePushConfigRef(v.tenant, p.ID, p.PushNotificationConfigID))
}

func (v10) pushConfig(raw json.RawMessage) (*a2a.TaskPushNotificationConfig, error) {
	return a2av1.DecodePushConfigResponse(raw)
}

func (v v10) listPushConfigs(taskID string) (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodListPushConfigs, verb: http.MethodGet, path: pushConfigsPath(taskID)}
	return with(op)(a2av1.EncodePushConfigRef(v.tenant, taskID, ""))
}

func (v10) pushConfigList(raw json.RawMessage) ([]a2a.TaskPushNotificationConfig, error) {
	return a2av1.DecodeListPushConfigsResponse(raw)
}

func (v v10) deletePushConfig(p a2a.DeleteTaskPushNotificationConfigParams) (operation, json.RawMessage, error) {
	op := operation{method: a2av1.MethodDeletePushConfig, verb: http.MethodDelete, path: pushConfigPath(p.ID, p.PushNotificationConfigID)}
	return with(op)(a2av1.EncodePushConfigRef(v.tenant, p.ID, p.PushNotificationConfigID))
}
