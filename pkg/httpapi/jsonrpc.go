package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// rpcMethod serves one JSON-RPC method; its result is marshalled as JSON
// (a json.RawMessage is written as it is).
type rpcMethod func(r *http.Request, id auth.Identity, params json.RawMessage) (any, error)

// call adapts a service operation to an rpcMethod: decode params, call.
func call[P any, R any](op func(context.Context, string, P) (R, error)) rpcMethod {
	return func(r *http.Request, id auth.Identity, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return op(r.Context(), id.Owner, p)
	}
}

// callOptional is call for methods whose params may be omitted.
func callOptional[P any, R any](op func(context.Context, string, P) (R, error)) rpcMethod {
	return func(r *http.Request, id auth.Identity, raw json.RawMessage) (any, error) {
		var p P
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
		}
		return op(r.Context(), id.Owner, p)
	}
}

// fail is a method that always answers err.
func fail(err error) rpcMethod {
	return func(*http.Request, auth.Identity, json.RawMessage) (any, error) { return nil, err }
}

var errStreaming = a2a.Errorf(a2a.CodeUnsupportedOperation,
	"streaming is not supported by this agent (capabilities.streaming is false); use message/send, then poll tasks/get or register a push notification config")

// jsonNull is the result of methods that return nothing.
var jsonNull = json.RawMessage("null")

func (h *handler) rpcMethods() map[string]rpcMethod {
	if h.svc == nil {
		return nil
	}
	return map[string]rpcMethod{
		a2a.MethodMessageSend:      call(h.svc.SendMessage),
		a2a.MethodTasksGet:         call(h.svc.GetTask),
		a2a.MethodTasksCancel:      call(h.svc.CancelTask),
		a2a.MethodTasksList:        call(h.svc.ListTasks),
		a2a.MethodMessageStream:    fail(errStreaming),
		a2a.MethodTasksResubscribe: fail(errStreaming),
		a2a.MethodPushConfigSet: call(func(ctx context.Context, owner string, p a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error) {
			return h.svc.SetPushConfig(ctx, owner, service.ProtocolV03, p)
		}),
		a2a.MethodPushConfigGet:  call(h.svc.GetPushConfig),
		a2a.MethodPushConfigList: call(h.svc.ListPushConfigs),
		a2a.MethodPushConfigDelete: call(func(ctx context.Context, owner string, p a2a.DeleteTaskPushNotificationConfigParams) (json.RawMessage, error) {
			return jsonNull, h.svc.DeletePushConfig(ctx, owner, p)
		}),
		a2a.MethodInterruptPermissionReply: call(h.svc.ReplyPermission),
		a2a.MethodInterruptQuestionReply:   call(h.svc.ReplyQuestion),
		a2a.MethodInterruptQuestionReject:  call(h.svc.RejectQuestion),
		a2a.MethodInterruptList:            callOptional(h.svc.ListInterrupts),
		a2a.MethodGetExtendedCard: func(r *http.Request, _ auth.Identity, _ json.RawMessage) (any, error) {
			return h.extendedCard(r)
		},
	}
}

// supportedMethods lists the served JSON-RPC methods, sorted.
func (h *handler) supportedMethods() []string {
	names := make([]string, 0, len(h.methods))
	for n := range h.methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// serveJSONRPC serves POST /: one JSON-RPC 2.0 request per HTTP request.
// Protocol errors are answered with HTTP 200 and a JSON-RPC error object;
// a notification (no id) is executed and answered 204 without a body.
func (h *handler) serveJSONRPC(w http.ResponseWriter, r *http.Request, id auth.Identity) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	req, respID, err := jsonrpc.Decode(body)
	if err != nil {
		h.writeRPCError(w, r, respID, err, "decode")
		return
	}
	method, found := h.methods[req.Method]
	if !found {
		err := (&a2a.Error{Code: a2a.CodeMethodNotFound, Message: "Unsupported method: " + req.Method}).WithData(map[string]any{
			"type":              "METHOD_NOT_SUPPORTED",
			"method":            req.Method,
			"supported_methods": h.supportedMethods(),
			"protocol_version":  "0.3",
		})
		if req.IsNotification() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.writeRPCError(w, r, respID, err, req.Method)
		return
	}
	result, err := method(r, id, req.Params)
	if req.IsNotification() {
		if err != nil {
			h.protocolError(r.Context(), err, req.Method) // logs internal errors
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err != nil {
		h.writeRPCError(w, r, respID, err, req.Method)
		return
	}
	b, err := appendResult(jsonrpc.AppendResultStart(make([]byte, 0, 1024), respID), result)
	if err != nil {
		h.writeRPCError(w, r, respID, err, req.Method)
		return
	}
	writeJSON(w, append(b, '}'))
}

// appender is implemented by the protocol objects that encode themselves
// (a2a.Task, a2a.ListTasksResult...).
type appender interface {
	AppendJSON([]byte) ([]byte, error)
}

// appendResult appends a result: raw JSON as it is, self-encoding objects
// directly, anything else through encoding/json.
func appendResult(b []byte, result any) ([]byte, error) {
	switch v := result.(type) {
	case json.RawMessage:
		return append(b, v...), nil
	case appender:
		return v.AppendJSON(b)
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}

func (h *handler) writeRPCError(w http.ResponseWriter, r *http.Request, id json.RawMessage, err error, op string) {
	writeJSON(w, jsonrpc.EncodeError(id, rpcError(h.protocolError(r.Context(), err, op))))
}
