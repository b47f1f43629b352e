package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"slices"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
)

// rpcMethod serves one JSON-RPC method; its result is appended by its
// AppendJSON method when it has one (the protocol objects, and the encoded
// results of 1.0 methods), written as it is when it is a json.RawMessage,
// and marshalled by encoding/json otherwise.
type rpcMethod func(r *http.Request, c call, params json.RawMessage) (any, error)

// call0 adapts a service operation to an rpcMethod: decode params, call.
func call0[P any, R any](op func(context.Context, string, P) (R, error)) rpcMethod {
	return func(r *http.Request, c call, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return op(r.Context(), c.id.Owner, p)
	}
}

// callOptional is call0 for methods whose params may be omitted.
func callOptional[P any, R any](op func(context.Context, string, P) (R, error)) rpcMethod {
	return func(r *http.Request, c call, raw json.RawMessage) (any, error) {
		var p P
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
		}
		return op(r.Context(), c.id.Owner, p)
	}
}

// fail is a method that always answers err.
func fail(err error) rpcMethod {
	return func(*http.Request, call, json.RawMessage) (any, error) { return nil, err }
}

var errStreaming = a2a.Errorf(a2a.CodeUnsupportedOperation,
	"streaming is not supported by this agent (capabilities.streaming is false); use message/send, then poll tasks/get or register a push notification config")

// jsonNull is the result of methods that return nothing.
var jsonNull = json.RawMessage("null")

// rpcMethods is the method table of A2A 0.3.
func (h *handler) rpcMethods() map[string]rpcMethod {
	if h.svc == nil {
		return nil
	}
	m := map[string]rpcMethod{
		a2a.MethodMessageSend: func(r *http.Request, c call, raw json.RawMessage) (any, error) {
			p, err := decodeSend03(raw)
			if err != nil {
				return nil, err
			}
			res, err := h.send(r, c, p)
			if err != nil {
				return nil, err
			}
			if res.Message != nil {
				return res.Message, nil
			}
			return res.Task, nil
		},
		a2a.MethodTasksGet: func(r *http.Request, c call, raw json.RawMessage) (any, error) {
			p, err := decodeTaskQuery(raw)
			if err != nil {
				return nil, err
			}
			return h.svc.GetTask(r.Context(), c.id.Owner, p)
		},
		a2a.MethodTasksCancel:      call0(h.svc.CancelTask),
		a2a.MethodTasksList:        call0(h.svc.ListTasks),
		a2a.MethodMessageStream:    fail(errStreaming),
		a2a.MethodTasksResubscribe: fail(errStreaming),
		a2a.MethodPushConfigSet: func(r *http.Request, c call, raw json.RawMessage) (any, error) {
			var p a2a.TaskPushNotificationConfig
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
			return h.svc.SetPushConfig(r.Context(), c.id.Owner, c.wire.version, p)
		},
		a2a.MethodPushConfigGet:  call0(h.svc.GetPushConfig),
		a2a.MethodPushConfigList: call0(h.svc.ListPushConfigs),
		a2a.MethodPushConfigDelete: call0(func(ctx context.Context, owner string, p a2a.DeleteTaskPushNotificationConfigParams) (json.RawMessage, error) {
			return jsonNull, h.svc.DeletePushConfig(ctx, owner, p)
		}),
		a2a.MethodGetExtendedCard: func(r *http.Request, c call, _ json.RawMessage) (any, error) {
			return h.extendedCard(r, c)
		},
	}
	maps.Copy(m, h.extensionMethods())
	return m
}

// extensionMethods are the extension methods served under every version
// (their params and results are the same in both).
func (h *handler) extensionMethods() map[string]rpcMethod {
	return map[string]rpcMethod{
		a2a.MethodInterruptPermissionReply: call0(h.svc.ReplyPermission),
		a2a.MethodInterruptQuestionReply:   call0(h.svc.ReplyQuestion),
		a2a.MethodInterruptQuestionReject:  call0(h.svc.RejectQuestion),
		a2a.MethodInterruptList:            callOptional(h.svc.ListInterrupts),
		a2a.MethodTasksFeedback:            call0(h.svc.Feedback),
		a2a.MethodContextsList:             callOptional(h.svc.ListContexts),
		a2a.MethodContextsClear:            call0(h.svc.ClearContext),
		a2a.MethodDeliveriesList:           call0(h.svc.ListDeliveries),
		a2a.MethodDeliveriesRedrive:        call0(h.svc.RedriveDeliveries),
		a2a.MethodFilesCreateUpload:        call0(h.svc.CreateUpload),
	}
}

// send runs message/send (SendMessage) of any version: the params record
// the version (it chooses the body of an inline push config's
// notifications) and, on /orchestrate, the session's context.
func (h *handler) send(r *http.Request, c call, p a2a.MessageSendParams) (a2a.SendResult, error) {
	p.Protocol = c.wire.version
	if err := c.bindSession(&p); err != nil {
		return a2a.SendResult{}, err
	}
	return h.svc.Send(r.Context(), c.id.Owner, p)
}

// sendResult is a send's result in the call's version: the task or the
// agent's Message.
func (c call) sendResult(res a2a.SendResult) appender {
	if res.Message != nil {
		return encoded[*a2a.Message]{res.Message, c.wire.appendSendMessage}
	}
	return encoded[*a2a.Task]{res.Task, c.wire.appendSendResult}
}

// bindSession puts a new task of an OAP session in the session's context:
// Orch-Session-Id is the contextId. A message that names another context
// is refused.
func (c call) bindSession(p *a2a.MessageSendParams) error {
	if c.session == "" {
		return nil
	}
	switch p.Message.ContextID {
	case "":
		if p.Message.TaskID == "" {
			p.Message.ContextID = c.session
		}
	case c.session:
	default:
		return a2a.InvalidParams("params.message.contextId", "%q differs from the Orch-Session-Id %q, which is the context of the session's tasks", p.Message.ContextID, c.session)
	}
	return nil
}

func sortedNames(m map[string]rpcMethod) []string {
	return slices.Sorted(maps.Keys(m))
}

// serveJSONRPC serves POST /: one JSON-RPC 2.0 request per HTTP request.
// Protocol errors are answered with HTTP 200 and a JSON-RPC error object
// framed for the request's version. A request without an id is answered
// too, with a null id: A2A defines no notifications, and its official SDK
// servers answer such requests (an unknown method with -32601, bad params
// with -32602).
func (h *handler) serveJSONRPC(w http.ResponseWriter, r *http.Request, c call) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	req, respID, err := jsonrpc.Decode(body)
	if err != nil {
		h.writeRPCError(w, r, c.wire, respID, err, "decode")
		return
	}
	method, found := c.wire.table().methods[req.Method]
	if !found {
		h.writeRPCError(w, r, c.wire, respID, c.wire.methodNotFound(req.Method), req.Method)
		return
	}
	logfields.AddAttrs(r.Context(), slog.String(logfields.FieldMethod, req.Method))
	result, err := method(r, c, req.Params)
	if err != nil {
		h.writeRPCError(w, r, c.wire, respID, err, req.Method)
		return
	}
	buf := h.answers.Get()
	b, err := appendResult(jsonrpc.AppendResultStart(*buf, respID), result)
	if err == nil {
		b = append(b, '}')
		err = h.writeResult(w, r, "application/json", b)
	}
	h.answers.Put(buf, b)
	if err != nil {
		h.writeRPCError(w, r, c.wire, respID, err, req.Method)
	}
}

// methodNotFound is the -32601 error for an unknown method, whose data
// lists the version's methods.
func (wr *wire) methodNotFound(method string) *a2a.Error {
	return (&a2a.Error{Code: a2a.CodeMethodNotFound, Message: "Unsupported method: " + method}).WithData(map[string]any{
		"type":              "METHOD_NOT_SUPPORTED",
		"method":            method,
		"supported_methods": wr.table().supported,
		"protocol_version":  string(wr.version),
	})
}

// appender is implemented by the protocol objects that encode themselves
// (a2a.Task, a2a.ListTasksResult...) and by encoded results.
type appender interface {
	AppendJSON([]byte) ([]byte, error)
}

// encoded is a result with the encoder of its version.
type encoded[R any] struct {
	v   R
	enc func([]byte, R) ([]byte, error)
}

func (e encoded[R]) AppendJSON(b []byte) ([]byte, error) { return e.enc(b, e.v) }

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

func (h *handler) writeRPCError(w http.ResponseWriter, r *http.Request, wr *wire, id json.RawMessage, err error, op string) {
	h.writeBody(w, r, "application/json", jsonrpc.EncodeError(id, wr.rpcError(h.protocolError(r.Context(), err, op))))
}
