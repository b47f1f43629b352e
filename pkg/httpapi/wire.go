package httpapi

import (
	"encoding/json"
	"net/http"
	"net/textproto"
	"strconv"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// wire is everything that differs between the protocol versions at the
// edge: the JSON-RPC method table, how errors are framed, and how REST
// bodies are read and written. The version of a request is decided once
// (negotiate) and its wire is passed down with the call; handlers call the
// wire and never test the version themselves.
type wire struct {
	version a2a.Version
	// table is the JSON-RPC method table of the version (and the envelope
	// types of /orchestrate), made at its first use: a process that
	// serves only its card, or one version, never makes the other, and a
	// start-up does not wait for them.
	table func() *rpcTable
	// extendedCardMethod is the JSON-RPC method of the extended card.
	extendedCardMethod string
	// rpcError frames a protocol error as a JSON-RPC error object.
	rpcError func(*a2a.Error) jsonrpc.ErrorObject

	// REST: the send body and result, tasks, lists and push configs.
	decodeSend       func(json.RawMessage) (a2a.MessageSendParams, error)
	appendSendResult func([]byte, *a2a.Task) ([]byte, error)
	// appendSendMessage writes the result of a send the agent answered
	// with a Message.
	appendSendMessage func([]byte, *a2a.Message) ([]byte, error)
	appendTask        func([]byte, *a2a.Task) ([]byte, error)
	appendList        func([]byte, *a2a.ListTasksResult) ([]byte, error)
	decodePushConfig  func(raw json.RawMessage, taskID string) (a2a.TaskPushNotificationConfig, error)
	appendPushConfig  func([]byte, *a2a.TaskPushNotificationConfig) ([]byte, error)
	appendPushList    func([]byte, []a2a.TaskPushNotificationConfig) ([]byte, error)
	// listParams converts the query of GET /tasks.
	listParams func(a2av1.ListTasksQuery) (a2a.ListTasksParams, error)
}

// rpcTable is a version's JSON-RPC methods by name.
type rpcTable struct {
	methods map[string]rpcMethod
	// supported lists the method names, sorted (the -32601 error data).
	supported []string
}

// newTable returns the table of methods, made at its first call.
func newTable(methods func() map[string]rpcMethod) func() *rpcTable {
	return sync.OnceValue(func() *rpcTable {
		m := methods()
		return &rpcTable{methods: m, supported: sortedNames(m)}
	})
}

// call is one authenticated A2A request, as its handler sees it.
type call struct {
	id   auth.Identity
	wire *wire
	// session is the OAP Orch-Session-Id: the context of the tasks an
	// envelope creates. Empty outside /orchestrate.
	session string
}

// versionHeaderKey is A2A-Version in its canonical form, the key of
// http.Header's map.
var versionHeaderKey = textproto.CanonicalMIMEHeaderKey(a2a.HeaderVersion)

// requestedVersion is the A2A-Version of a request: the header, else the
// query parameter.
func requestedVersion(r *http.Request) string {
	if v := r.Header[versionHeaderKey]; len(v) > 0 {
		return v[0]
	}
	if r.URL.RawQuery == "" {
		return ""
	}
	return r.URL.Query().Get(a2a.HeaderVersion)
}

// negotiate decides the request's protocol version: one this server
// serves (Options.Versions), or a VersionNotSupported error.
func (h *handler) negotiate(r *http.Request) (*wire, error) {
	requested := requestedVersion(r)
	v, err := a2a.ParseVersion(requested)
	if err != nil {
		return nil, err
	}
	wr, ok := h.v03, h.serves03
	if v == a2a.V10 {
		wr, ok = h.v10, h.serves10
	}
	if !ok {
		what := "A2A-Version " + strconv.Quote(requested)
		if requested == "" {
			what = "A request without A2A-Version"
		}
		e := a2a.Errorf(a2a.CodeVersionNotSupported, "%s asks for A2A %s, which this agent does not serve: it speaks %s only (send A2A-Version: %s)", what, v, h.served, h.served)
		return nil, e.WithData(map[string]any{"requested_version": string(v), "supported_versions": h.served})
	}
	return wr, nil
}

func (h *handler) newWire03() *wire {
	return &wire{
		version:            a2a.V03,
		table:              newTable(h.rpcMethods),
		extendedCardMethod: a2a.MethodGetExtendedCard,
		rpcError:           rpcError03,
		decodeSend:         decodeSend03,
		appendSendResult:   func(b []byte, t *a2a.Task) ([]byte, error) { return t.AppendJSON(b) },
		appendSendMessage:  func(b []byte, m *a2a.Message) ([]byte, error) { return m.AppendJSON(b) },
		appendTask:         func(b []byte, t *a2a.Task) ([]byte, error) { return t.AppendJSON(b) },
		appendList:         func(b []byte, r *a2a.ListTasksResult) ([]byte, error) { return r.AppendJSON(b) },
		decodePushConfig:   decodeRESTPushConfig,
		appendPushConfig:   func(b []byte, c *a2a.TaskPushNotificationConfig) ([]byte, error) { return appendJSON(b, c) },
		appendPushList:     func(b []byte, cs []a2a.TaskPushNotificationConfig) ([]byte, error) { return appendJSON(b, cs) },
		listParams: func(q a2av1.ListTasksQuery) (a2a.ListTasksParams, error) {
			return a2a.ListTasksParams{ContextID: q.ContextID, Status: a2av1.StateName(q.Status), PageSize: q.PageSize,
				PageToken: q.PageToken, HistoryLength: q.HistoryLength, StatusTimestampAfter: q.StatusTimestampAfter, IncludeArtifacts: q.IncludeArtifacts}, nil
		},
	}
}

func (h *handler) newWire10() *wire {
	return &wire{
		version:            a2a.V10,
		table:              newTable(h.rpcMethods10),
		extendedCardMethod: a2av1.MethodGetExtendedAgentCard,
		rpcError:           a2av1.RPCError,
		decodeSend: func(raw json.RawMessage) (a2a.MessageSendParams, error) {
			return a2av1.DecodeSendMessageRequest(camelCase(raw))
		},
		appendSendResult:  a2av1.AppendSendResult,
		appendSendMessage: a2av1.AppendSendMessageResult,
		appendTask:        a2av1.AppendTask,
		appendList:        a2av1.AppendListTasksResponse,
		decodePushConfig: func(raw json.RawMessage, taskID string) (a2a.TaskPushNotificationConfig, error) {
			return a2av1.DecodePushConfig(camelCase(raw), taskID)
		},
		appendPushConfig: appendPushConfig10,
		appendPushList:   appendPushList10,
		listParams:       a2av1.ListTasksQuery.Params,
	}
}

// appendJSON appends v through encoding/json.
func appendJSON(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}
