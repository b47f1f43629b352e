package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// SendResult is the answer to a message: a task, or (for agents that answer
// without creating a task) a message. Exactly one is set.
type SendResult struct {
	Task    *a2a.Task
	Message *a2a.Message
}

// SendMessage sends a message (message/send, SendMessage, POST
// message:send). An empty MessageID is filled with a new UUID and an empty
// Role with "user". Configuration.Blocking nil leaves the choice to the
// server; under 1.0, Blocking false is sent as returnImmediately.
func (c *Client) SendMessage(ctx context.Context, p a2a.MessageSendParams) (*SendResult, error) {
	if p.Message.MessageID == "" {
		p.Message.MessageID = uuid.NewString()
	}
	if p.Message.Role == "" {
		p.Message.Role = a2a.RoleUser
	}
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case ep.Version == Version10:
		var w v1SendResult
		req := toV1SendRequest(ep.Tenant, p)
		err = c.call(ctx, ep, "SendMessage", req, restCall{http.MethodPost, "/message:send", nil, req}, &w)
		if err != nil {
			return nil, err
		}
		switch {
		case w.Task != nil:
			t := fromV1Task(*w.Task)
			return &SendResult{Task: &t}, nil
		case w.Message != nil:
			m := fromV1Message(*w.Message)
			return &SendResult{Message: &m}, nil
		}
		return nil, errors.New("SendMessage: the result holds neither a task nor a message")
	default:
		var raw json.RawMessage
		err = c.call(ctx, ep, a2a.MethodMessageSend, p, restCall{http.MethodPost, "/message:send", nil, p}, &raw)
		if err != nil {
			return nil, err
		}
		return decodeSendResult03(raw)
	}
}

// decodeSendResult03 reads a 0.3 send result: a Task or a Message (told by
// "kind", or by their fields), possibly wrapped in {"task"} / {"message"}
// as the 0.3 REST binding specifies.
func decodeSendResult03(raw json.RawMessage) (*SendResult, error) {
	var probe struct {
		Kind    string          `json:"kind"`
		Role    string          `json:"role"`
		Status  json.RawMessage `json:"status"`
		Task    json.RawMessage `json:"task"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("message/send: decode result: %w", err)
	}
	switch {
	case probe.Kind == "task" || (probe.Kind == "" && probe.Status != nil):
		var t a2a.Task
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("message/send: decode task: %w", err)
		}
		return &SendResult{Task: &t}, nil
	case probe.Kind == "message" || (probe.Kind == "" && probe.Role != ""):
		var m a2a.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("message/send: decode message: %w", err)
		}
		return &SendResult{Message: &m}, nil
	case probe.Task != nil:
		return decodeSendResult03(probe.Task)
	case probe.Message != nil:
		return decodeSendResult03(probe.Message)
	}
	return nil, fmt.Errorf("message/send: the result is neither a task nor a message: %s", snippet(raw))
}

// GetTask reads a task (tasks/get, GetTask, GET tasks/{id}).
func (c *Client) GetTask(ctx context.Context, p a2a.TaskQueryParams) (*a2a.Task, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	query := url.Values{}
	if p.HistoryLength != nil {
		query.Set("historyLength", strconv.Itoa(*p.HistoryLength))
	}
	path := "/tasks/" + url.PathEscape(p.ID)
	switch {
	case ep.Version == Version10:
		var w v1Task
		err = c.call(ctx, ep, "GetTask", v1GetRequest{Tenant: ep.Tenant, ID: p.ID, HistoryLength: p.HistoryLength}, restCall{http.MethodGet, path, query, nil}, &w)
		if err != nil {
			return nil, err
		}
		t := fromV1Task(w)
		return &t, nil
	default:
		var t a2a.Task
		err = c.call(ctx, ep, a2a.MethodTasksGet, p, restCall{http.MethodGet, path, query, nil}, &t)
		if err != nil {
			return nil, err
		}
		return &t, nil
	}
}

// ListTasks lists the caller's tasks, newest first (tasks/list, ListTasks,
// GET tasks).
func (c *Client) ListTasks(ctx context.Context, p a2a.ListTasksParams) (*a2a.ListTasksResult, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	query := url.Values{}
	set := func(k, v string) {
		if v != "" {
			query.Set(k, v)
		}
	}
	set("contextId", p.ContextID)
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
	switch {
	case ep.Version == Version10:
		set("status", v1State(p.Status))
		var w v1ListResponse
		err = c.call(ctx, ep, "ListTasks", toV1ListRequest(ep.Tenant, p), restCall{http.MethodGet, "/tasks", query, nil}, &w)
		if err != nil {
			return nil, err
		}
		return fromV1List(w), nil
	default:
		set("status", string(p.Status))
		var r a2a.ListTasksResult
		err = c.call(ctx, ep, a2a.MethodTasksList, p, restCall{http.MethodGet, "/tasks", query, nil}, &r)
		if err != nil {
			return nil, err
		}
		if r.Tasks == nil {
			r.Tasks = []a2a.Task{}
		}
		return &r, nil
	}
}

// CancelTask cancels a task (tasks/cancel, CancelTask, POST
// tasks/{id}:cancel) and returns it.
func (c *Client) CancelTask(ctx context.Context, p a2a.TaskIDParams) (*a2a.Task, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	path := "/tasks/" + url.PathEscape(p.ID) + ":cancel"
	switch {
	case ep.Version == Version10:
		var w v1Task
		req := v1CancelRequest{Tenant: ep.Tenant, ID: p.ID, Metadata: p.Metadata}
		err = c.call(ctx, ep, "CancelTask", req, restCall{http.MethodPost, path, nil, req}, &w)
		if err != nil {
			return nil, err
		}
		t := fromV1Task(w)
		return &t, nil
	default:
		var t a2a.Task
		err = c.call(ctx, ep, a2a.MethodTasksCancel, p, restCall{http.MethodPost, path, nil, p}, &t)
		if err != nil {
			return nil, err
		}
		return &t, nil
	}
}

// ExtendedCard fetches the authenticated extended card
// (agent/getAuthenticatedExtendedCard, GetExtendedAgentCard, GET card).
func (c *Client) ExtendedCard(ctx context.Context) (*Card, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	switch {
	case ep.Version == Version10 && ep.Binding == BindingJSONRPC:
		err = c.callRPC(ctx, ep, "GetExtendedAgentCard", struct {
			Tenant string `json:"tenant,omitempty"`
		}{ep.Tenant}, &raw)
	case ep.Version == Version10:
		err = c.callREST(ctx, ep, http.MethodGet, "/extendedAgentCard", nil, nil, &raw)
	case ep.Binding == BindingJSONRPC:
		err = c.callRPC(ctx, ep, a2a.MethodGetExtendedCard, nil, &raw)
	default:
		err = c.callREST(ctx, ep, http.MethodGet, "/card", nil, nil, &raw)
	}
	if err != nil {
		return nil, err
	}
	return parseCard(raw)
}

// SetPushConfig registers a push notification config on a task
// (tasks/pushNotificationConfig/set, CreateTaskPushNotificationConfig, POST
// tasks/{id}/pushNotificationConfigs). Over 0.3 REST the body is the
// TaskPushNotificationConfig, as the JSON-RPC params.
func (c *Client) SetPushConfig(ctx context.Context, cfg a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	path := "/tasks/" + url.PathEscape(cfg.TaskID) + "/pushNotificationConfigs"
	if ep.Version == Version10 {
		var w v1PushConfig
		req := toV1PushConfig(ep.Tenant, cfg)
		err = c.call(ctx, ep, "CreateTaskPushNotificationConfig", req, restCall{http.MethodPost, path, nil, req}, &w)
		if err != nil {
			return nil, err
		}
		out := fromV1PushConfig(w)
		return &out, nil
	}
	var out a2a.TaskPushNotificationConfig
	err = c.call(ctx, ep, a2a.MethodPushConfigSet, cfg, restCall{http.MethodPost, path, nil, cfg}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// GetPushConfig reads one push notification config of a task.
func (c *Client) GetPushConfig(ctx context.Context, p a2a.GetTaskPushNotificationConfigParams) (*a2a.TaskPushNotificationConfig, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	path := "/tasks/" + url.PathEscape(p.ID) + "/pushNotificationConfigs/" + url.PathEscape(p.PushNotificationConfigID)
	if ep.Version == Version10 {
		var w v1PushConfig
		err = c.call(ctx, ep, "GetTaskPushNotificationConfig", v1PushConfigRef{Tenant: ep.Tenant, TaskID: p.ID, ID: p.PushNotificationConfigID}, restCall{http.MethodGet, path, nil, nil}, &w)
		if err != nil {
			return nil, err
		}
		out := fromV1PushConfig(w)
		return &out, nil
	}
	var out a2a.TaskPushNotificationConfig
	err = c.call(ctx, ep, a2a.MethodPushConfigGet, p, restCall{http.MethodGet, path, nil, nil}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ListPushConfigs lists the push notification configs of a task.
func (c *Client) ListPushConfigs(ctx context.Context, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	path := "/tasks/" + url.PathEscape(taskID) + "/pushNotificationConfigs"
	if ep.Version == Version10 {
		var w v1PushConfigList
		err = c.call(ctx, ep, "ListTaskPushNotificationConfigs", v1PushConfigRef{Tenant: ep.Tenant, TaskID: taskID}, restCall{http.MethodGet, path, nil, nil}, &w)
		if err != nil {
			return nil, err
		}
		out := make([]a2a.TaskPushNotificationConfig, 0, len(w.Configs))
		for _, cfg := range w.Configs {
			out = append(out, fromV1PushConfig(cfg))
		}
		return out, nil
	}
	var raw json.RawMessage
	err = c.call(ctx, ep, a2a.MethodPushConfigList, a2a.ListTaskPushNotificationConfigParams{ID: taskID}, restCall{http.MethodGet, path, nil, nil}, &raw)
	if err != nil {
		return nil, err
	}
	return decodePushList03(raw)
}

// decodePushList03 reads a 0.3 list of push configs: an array (JSON-RPC) or
// the proto's {"configs": [...]} (REST).
func decodePushList03(raw json.RawMessage) ([]a2a.TaskPushNotificationConfig, error) {
	out := []a2a.TaskPushNotificationConfig{}
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	if raw[0] == '{' {
		var w struct {
			Configs []a2a.TaskPushNotificationConfig `json:"configs"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("decode push configs: %w", err)
		}
		return append(out, w.Configs...), nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode push configs: %w", err)
	}
	return out, nil
}

// DeletePushConfig deletes one push notification config of a task.
func (c *Client) DeletePushConfig(ctx context.Context, p a2a.DeleteTaskPushNotificationConfigParams) error {
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return err
	}
	path := "/tasks/" + url.PathEscape(p.ID) + "/pushNotificationConfigs/" + url.PathEscape(p.PushNotificationConfigID)
	switch {
	case ep.Binding == BindingREST:
		return c.callREST(ctx, ep, http.MethodDelete, path, nil, nil, nil)
	case ep.Version == Version10:
		return c.callRPC(ctx, ep, "DeleteTaskPushNotificationConfig", v1PushConfigRef{Tenant: ep.Tenant, TaskID: p.ID, ID: p.PushNotificationConfigID}, nil)
	}
	return c.callRPC(ctx, ep, a2a.MethodPushConfigDelete, p, nil)
}

// Interrupt callback methods (JSON-RPC extension methods).
const (
	MethodPermissionReply = "a2a.interrupt.permission.reply"
	MethodQuestionReply   = "a2a.interrupt.question.reply"
	MethodQuestionReject  = "a2a.interrupt.question.reject"
)

// Permission replies.
const (
	PermissionOnce   = "once"
	PermissionAlways = "always"
	PermissionReject = "reject"
)

// InterruptResult is the answer of an interrupt callback.
type InterruptResult struct {
	OK        bool   `json:"ok"`
	RequestID string `json:"request_id"`
}

// ReplyPermission answers a permission interrupt: reply is once, always or
// reject; message is optional.
func (c *Client) ReplyPermission(ctx context.Context, requestID, reply, message string) (*InterruptResult, error) {
	switch reply {
	case PermissionOnce, PermissionAlways, PermissionReject:
	default:
		return nil, fmt.Errorf("permission reply %q: must be %s, %s or %s", reply, PermissionOnce, PermissionAlways, PermissionReject)
	}
	params := struct {
		RequestID string `json:"request_id"`
		Reply     string `json:"reply"`
		Message   string `json:"message,omitempty"`
	}{requestID, reply, message}
	var r InterruptResult
	if err := c.CallJSONRPC(ctx, MethodPermissionReply, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ReplyQuestion answers a question interrupt: one list of answers per
// question asked.
func (c *Client) ReplyQuestion(ctx context.Context, requestID string, answers [][]string) (*InterruptResult, error) {
	params := struct {
		RequestID string     `json:"request_id"`
		Answers   [][]string `json:"answers"`
	}{requestID, answers}
	var r InterruptResult
	if err := c.CallJSONRPC(ctx, MethodQuestionReply, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RejectQuestion declines to answer a question interrupt.
func (c *Client) RejectQuestion(ctx context.Context, requestID string) (*InterruptResult, error) {
	params := struct {
		RequestID string `json:"request_id"`
	}{requestID}
	var r InterruptResult
	if err := c.CallJSONRPC(ctx, MethodQuestionReject, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// PendingInterrupt is what an interrupted task waits for, read from its
// status message's metadata.shared.interrupt.
type PendingInterrupt struct {
	RequestID string
	// Type is question, permission or auth.
	Type string
	// Phase is "asked" while the interrupt waits.
	Phase   string
	Details map[string]any
	// Text is the status message's text (the question).
	Text string
}

// Interrupt returns the pending interrupt of an interrupted task, or nil
// when the task is not interrupted. A task interrupted without
// metadata.shared.interrupt (a plain A2A agent) gives a PendingInterrupt
// with only Text set.
func Interrupt(t *a2a.Task) *PendingInterrupt {
	if t == nil || !t.Status.State.Interrupted() {
		return nil
	}
	p := &PendingInterrupt{Text: t.Status.Message.Text()}
	if t.Status.Message == nil {
		return p
	}
	im := t.Status.Message.Metadata.Object("shared").Object("interrupt")
	p.RequestID = im.String("request_id")
	p.Type = im.String("type")
	p.Phase = im.String("phase")
	p.Details = im.Object("details")
	return p
}
