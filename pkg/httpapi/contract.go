package httpapi

import (
	"slices"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
)

// The wire contract is the machine-readable list of what this edge serves,
// published in the extended card (extension card.ExtWireContract): the core
// A2A methods and endpoints per version, the extension methods, the methods
// whose availability depends on the deployment, and all methods a client
// may call now. It is derived from the method tables themselves, so it is
// the runtime truth.

// coreMethods are the A2A specification's own JSON-RPC methods, per version.
var coreMethods = map[a2a.Version][]string{
	a2a.V03: {a2a.MethodMessageSend, a2a.MethodMessageStream, a2a.MethodTasksGet, a2a.MethodTasksCancel, a2a.MethodTasksResubscribe,
		a2a.MethodPushConfigSet, a2a.MethodPushConfigGet, a2a.MethodPushConfigList, a2a.MethodPushConfigDelete, a2a.MethodGetExtendedCard},
	a2a.V10: {a2av1.MethodSendMessage, a2av1.MethodSendStreamingMessage, a2av1.MethodGetTask, a2av1.MethodListTasks, a2av1.MethodCancelTask,
		a2av1.MethodSubscribeToTask, a2av1.MethodCreatePushConfig, a2av1.MethodGetPushConfig, a2av1.MethodListPushConfigs,
		a2av1.MethodDeletePushConfig, a2av1.MethodGetExtendedAgentCard},
}

// conditional are the methods that answer only when the card declares a
// capability: the condition, and the methods of both versions.
var conditional = []struct {
	capability string
	methods    []string
}{
	{"capabilities.streaming", []string{a2a.MethodMessageStream, a2a.MethodTasksResubscribe, a2av1.MethodSendStreamingMessage, a2av1.MethodSubscribeToTask}},
	{"capabilities.pushNotifications", []string{a2a.MethodPushConfigSet, a2a.MethodPushConfigGet, a2a.MethodPushConfigList, a2a.MethodPushConfigDelete,
		a2av1.MethodCreatePushConfig, a2av1.MethodGetPushConfig, a2av1.MethodListPushConfigs, a2av1.MethodDeletePushConfig,
		a2a.MethodDeliveriesList, a2a.MethodDeliveriesRedrive}},
	{filesCondition, []string{a2a.MethodFilesCreateUpload}},
}

// filesCondition is the condition of the files extension's method: the
// card declares the extension (the server keeps files).
const filesCondition = "capabilities.extensions[" + card.ExtFiles + "]"

// httpEndpoints are the HTTP+JSON routes of version v, relative to the
// public URL, derived from restRoutes: under the version's REST base (0.3:
// /v1), each {id}:<action> custom method spelled out. The REST ones also
// answer under /rest/{tenant}.
func httpEndpoints(v a2a.Version) []string {
	base := card.RESTPath
	if v == a2a.V03 {
		base += "/v1"
	}
	var eps []string
	for _, rt := range restRoutes {
		if (rt.only != "" && rt.only != v) || rt.extension {
			continue
		}
		if len(rt.actions) == 0 {
			eps = append(eps, rt.method+" "+base+rt.path)
		}
		for _, a := range rt.actions {
			eps = append(eps, rt.method+" "+base+rt.path+":"+a)
		}
	}
	return eps
}

// extensionEndpoints are the REST routes of extensions, under the 0.3
// REST base (they answer under every REST base, as the binding's routes).
func extensionEndpoints() []string {
	var eps []string
	for _, rt := range restRoutes {
		if rt.extension {
			eps = append(eps, rt.method+" "+card.RESTPath+"/v1"+rt.path)
		}
	}
	return eps
}

// wireContract describes what the edge serves, given the public card (its
// capabilities decide the conditional methods).
func (h *handler) wireContract(pub *a2a.AgentCard) a2a.AgentExtension {
	available := map[string]bool{
		"capabilities.streaming":         pub.Capabilities.Streaming,
		"capabilities.pushNotifications": pub.Capabilities.PushNotifications,
		filesCondition:                   slices.ContainsFunc(pub.Capabilities.Extensions, func(e a2a.AgentExtension) bool { return e.URI == card.ExtFiles }),
	}
	var conditionals []map[string]any
	unavailable := map[string]bool{}
	for _, c := range conditional {
		for _, m := range c.methods {
			conditionals = append(conditionals, map[string]any{"method": m, "requires": c.capability, "available": available[c.capability]})
			if !available[c.capability] {
				unavailable[m] = true
			}
		}
	}
	all := map[string][]string{}
	core := map[string][]string{}
	var extensions []string
	for _, wr := range []*wire{h.v03, h.v10} {
		if (wr == h.v03 && !h.serves03) || (wr == h.v10 && !h.serves10) {
			continue
		}
		v := string(wr.version)
		core[v] = coreMethods[wr.version]
		for _, m := range wr.table().supported {
			if !unavailable[m] {
				all[v] = append(all[v], m)
			}
			if !slices.Contains(coreMethods[wr.version], m) && !slices.Contains(extensions, m) {
				extensions = append(extensions, m)
			}
		}
	}
	slices.Sort(extensions)
	uris := make([]string, 0, len(pub.Capabilities.Extensions)+1)
	for _, e := range pub.Capabilities.Extensions {
		uris = append(uris, e.URI)
	}
	uris = append(uris, card.ExtWireContract)
	endpoints := map[string][]string{}
	if h.serves03 {
		endpoints[string(a2a.V03)] = httpEndpoints(a2a.V03)
	}
	if h.serves10 {
		endpoints[string(a2a.V10)] = httpEndpoints(a2a.V10)
	}
	return a2a.AgentExtension{
		URI:         card.ExtWireContract,
		Description: "The wire contract of this deployment: the methods and endpoints it serves, per protocol version.",
		Params: map[string]any{
			"default_protocol_version":    string(a2a.V03),
			"supported_protocol_versions": strings.Split(h.served, ","),
			"version_selection":           "A2A-Version header or query parameter; none or 0.3.x selects 0.3, 1 or 1.0.x selects 1.0, anything else, or a version this deployment does not serve (A2A_PROTOCOL_VERSIONS), is -32009 (REST 400)",
			"core": map[string]any{
				"jsonrpc_methods": core,
				"jsonrpc_url":     "/",
				"http_endpoints":  endpoints,
			},
			"extensions": map[string]any{
				"jsonrpc_methods":                 extensions,
				"conditionally_available_methods": conditionals,
				"extension_uris":                  uris,
				"http_endpoints":                  append([]string{"POST /orchestrate", "GET /health"}, extensionEndpoints()...),
			},
			"all_jsonrpc_methods": all,
			"unsupported_method_error": map[string]any{
				"code": int(a2a.CodeMethodNotFound), "message": "Unsupported method: <method>",
				"data_fields": []string{"type", "method", "supported_methods", "protocol_version"},
			},
		},
	}
}
