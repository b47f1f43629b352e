package client

import (
	"context"
	"encoding/json"
	"fmt"

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
	return call(ctx, c,
		func(w protocol) (operation, json.RawMessage, error) { return w.sendMessage(p) },
		protocol.sendResult)
}

// GetTask reads a task (tasks/get, GetTask, GET tasks/{id}).
func (c *Client) GetTask(ctx context.Context, p a2a.TaskQueryParams) (*a2a.Task, error) {
	return call(ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.getTask(p) }, protocol.task)
}

// ListTasks lists the caller's tasks, newest first (tasks/list, ListTasks,
// GET tasks).
func (c *Client) ListTasks(ctx context.Context, p a2a.ListTasksParams) (*a2a.ListTasksResult, error) {
	return call(ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.listTasks(p) }, protocol.taskList)
}

// CancelTask cancels a task (tasks/cancel, CancelTask, POST
// tasks/{id}:cancel) and returns it.
func (c *Client) CancelTask(ctx context.Context, p a2a.TaskIDParams) (*a2a.Task, error) {
	return call(ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.cancelTask(p) }, protocol.task)
}

// ExtendedCard fetches the authenticated extended card
// (agent/getAuthenticatedExtendedCard, GetExtendedAgentCard, GET card).
func (c *Client) ExtendedCard(ctx context.Context) (*Card, error) {
	return call(ctx, c, protocol.extendedCard, func(_ protocol, raw json.RawMessage) (*Card, error) { return parseCard(raw) })
}

// SetPushConfig registers a push notification config on a task
// (tasks/pushNotificationConfig/set, CreateTaskPushNotificationConfig, POST
// tasks/{id}/pushNotificationConfigs). Over 0.3 REST the body is the
// TaskPushNotificationConfig, as the JSON-RPC params.
func (c *Client) SetPushConfig(ctx context.Context, cfg a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error) {
	return call(ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.setPushConfig(cfg) }, protocol.pushConfig)
}

// GetPushConfig reads one push notification config of a task.
func (c *Client) GetPushConfig(ctx context.Context, p a2a.GetTaskPushNotificationConfigParams) (*a2a.TaskPushNotificationConfig, error) {
	return call(ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.getPushConfig(p) }, protocol.pushConfig)
}

// ListPushConfigs lists the push notification configs of a task.
func (c *Client) ListPushConfigs(ctx context.Context, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	return call(ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.listPushConfigs(taskID) }, protocol.pushConfigList)
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
	_, err := call[struct{}](ctx, c, func(w protocol) (operation, json.RawMessage, error) { return w.deletePushConfig(p) }, nil)
	return err
}

// ReplyPermission answers a permission interrupt: reply is
// a2a.PermissionOnce, a2a.PermissionAlways or a2a.PermissionReject; message
// is optional.
func (c *Client) ReplyPermission(ctx context.Context, requestID, reply, message string) (*a2a.InterruptReplyResult, error) {
	switch reply {
	case a2a.PermissionOnce, a2a.PermissionAlways, a2a.PermissionReject:
	default:
		return nil, fmt.Errorf("permission reply %q: must be %s, %s or %s", reply, a2a.PermissionOnce, a2a.PermissionAlways, a2a.PermissionReject)
	}
	params := struct {
		RequestID string `json:"request_id"`
		Reply     string `json:"reply"`
		Message   string `json:"message,omitempty"`
	}{requestID, reply, message}
	var r a2a.InterruptReplyResult
	if err := c.CallJSONRPC(ctx, a2a.MethodInterruptPermissionReply, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ReplyQuestion answers a question interrupt: one list of answers per
// question asked.
func (c *Client) ReplyQuestion(ctx context.Context, requestID string, answers [][]string) (*a2a.InterruptReplyResult, error) {
	params := struct {
		RequestID string     `json:"request_id"`
		Answers   [][]string `json:"answers"`
	}{requestID, answers}
	var r a2a.InterruptReplyResult
	if err := c.CallJSONRPC(ctx, a2a.MethodInterruptQuestionReply, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RejectQuestion declines to answer a question interrupt.
func (c *Client) RejectQuestion(ctx context.Context, requestID string) (*a2a.InterruptReplyResult, error) {
	params := struct {
		RequestID string `json:"request_id"`
	}{requestID}
	var r a2a.InterruptReplyResult
	if err := c.CallJSONRPC(ctx, a2a.MethodInterruptQuestionReject, params, &r); err != nil {
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
	im, _ := a2a.InterruptOf(t.Status.Message)
	p.RequestID, p.Type, p.Phase, p.Details = im.RequestID, im.Type, im.Phase, im.Details
	return p
}

// ListDeliveries reads one page of a task's push notification deliveries,
// each with its attempts (tasks/deliveries/list, the delivery log
// extension).
func (c *Client) ListDeliveries(ctx context.Context, p a2a.ListDeliveriesParams) (*a2a.ListDeliveriesResult, error) {
	var r a2a.ListDeliveriesResult
	if err := c.CallJSONRPC(ctx, a2a.MethodDeliveriesList, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RedriveDeliveries sends a task's failed deliveries again, those of one
// event and config when p names them (tasks/deliveries/redrive).
func (c *Client) RedriveDeliveries(ctx context.Context, p a2a.RedriveDeliveriesParams) (*a2a.RedriveDeliveriesResult, error) {
	var r a2a.RedriveDeliveriesResult
	if err := c.CallJSONRPC(ctx, a2a.MethodDeliveriesRedrive, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
