package httpapi

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

// call1 adapts a service operation to an A2A 1.0 rpcMethod: decode the 1.0
// params into the internal ones, call, encode the result in its 1.0 form.
func call1[P any, R any](decode func(json.RawMessage) (P, error), op func(context.Context, string, P) (R, error), enc func([]byte, R) ([]byte, error)) rpcMethod {
	return func(r *http.Request, c call, raw json.RawMessage) (any, error) {
		p, err := decode(camelCase(raw))
		if err != nil {
			return nil, err
		}
		res, err := op(r.Context(), c.id.Owner, p)
		if err != nil {
			return nil, err
		}
		return encoded[R]{res, enc}, nil
	}
}

// rpcMethods10 is the method table of A2A 1.0.
func (h *handler) rpcMethods10() map[string]rpcMethod {
	if h.svc == nil {
		return nil
	}
	m := map[string]rpcMethod{
		a2av1.MethodSendMessage: func(r *http.Request, c call, raw json.RawMessage) (any, error) {
			p, err := a2av1.DecodeSendMessageRequest(camelCase(raw))
			if err != nil {
				return nil, err
			}
			res, err := h.send(r, c, p)
			if err != nil {
				return nil, err
			}
			return c.sendResult(res), nil
		},
		a2av1.MethodGetTask:              call1(a2av1.DecodeGetTaskRequest, h.svc.GetTask, a2av1.AppendTask),
		a2av1.MethodCancelTask:           call1(a2av1.DecodeCancelTaskRequest, h.svc.CancelTask, a2av1.AppendTask),
		a2av1.MethodListTasks:            call1(a2av1.DecodeListTasksRequest, h.svc.ListTasks, a2av1.AppendListTasksResponse),
		a2av1.MethodSendStreamingMessage: fail(errStreaming),
		a2av1.MethodSubscribeToTask:      fail(errStreaming),
		a2av1.MethodCreatePushConfig: func(r *http.Request, c call, raw json.RawMessage) (any, error) {
			p, err := a2av1.DecodePushConfig(camelCase(raw), "")
			if err != nil {
				return nil, err
			}
			res, err := h.svc.SetPushConfig(r.Context(), c.id.Owner, a2a.V10, p)
			if err != nil {
				return nil, err
			}
			return encoded[*a2a.TaskPushNotificationConfig]{res, appendPushConfig10}, nil
		},
		a2av1.MethodGetPushConfig:   call1(a2av1.DecodeGetPushConfigRequest, h.svc.GetPushConfig, appendPushConfig10),
		a2av1.MethodListPushConfigs: call1(a2av1.DecodeListPushConfigsRequest, h.svc.ListPushConfigs, appendPushList10),
		a2av1.MethodDeletePushConfig: call1(a2av1.DecodeDeletePushConfigRequest,
			func(ctx context.Context, owner string, p a2a.DeleteTaskPushNotificationConfigParams) (json.RawMessage, error) {
				return a2av1.Empty, h.svc.DeletePushConfig(ctx, owner, p)
			}, appendRaw),
		a2av1.MethodGetExtendedAgentCard: func(r *http.Request, c call, _ json.RawMessage) (any, error) {
			return h.extendedCard(r, c)
		},
	}
	maps.Copy(m, h.extensionMethods())
	return m
}

func appendPushConfig10(b []byte, c *a2a.TaskPushNotificationConfig) ([]byte, error) {
	return a2av1.AppendPushConfig(b, c), nil
}

func appendPushList10(b []byte, cs []a2a.TaskPushNotificationConfig) ([]byte, error) {
	return a2av1.AppendListPushConfigsResponse(b, cs), nil
}

func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) { return append(b, raw...), nil }
