package card

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/oap"
)

// Extension URIs. The opencode-a2a shared contracts keep their own URIs;
// the others are specified in this project's README, under "Extensions".
const (
	opencodeSpec = "https://github.com/Intelligent-Internet/opencode-a2a/blob/main/docs/extension-specifications.md"
	readme       = "https://github.com/a2a-lambda/a2a-lambda/blob/main/README.md"

	// ExtSessionBinding: metadata.shared.session.id binds a request to an
	// agent session; by default one session per (caller, contextId).
	ExtSessionBinding = opencodeSpec + "#shared-session-binding-v1"
	// ExtModelSelection: metadata.shared.model {providerID, modelID}
	// chooses the model of one request.
	ExtModelSelection = opencodeSpec + "#shared-model-selection-v1"
	// ExtStreamHints: the shared metadata of final task payloads
	// (metadata.shared.usage, .interrupt, .session).
	ExtStreamHints = opencodeSpec + "#shared-stream-hints-v1"
	// ExtInterrupt: the a2a.interrupt.* callback methods.
	ExtInterrupt = opencodeSpec + "#shared-interactive-interrupt-v1"
	// ExtTaskFeedback: tasks/feedback (Bindu).
	ExtTaskFeedback = readme + "#task-feedback-v1"
	// ExtContexts: contexts/list and contexts/clear (Bindu).
	ExtContexts = readme + "#contexts-v1"
	// ExtTaskList: tasks/list under A2A 0.3 (ListTasks of 1.0).
	ExtTaskList = readme + "#task-list-v1"
	// ExtOAP: the OAP envelope binding on POST /orchestrate.
	ExtOAP = readme + "#oap-binding-v1"
	// ExtImplementation: the host's name, module and version (from its
	// build information, pkg/internal/buildinfo).
	ExtImplementation = readme + "#implementation-v1"
	// ExtDeliveries: tasks/deliveries/list and tasks/deliveries/redrive,
	// the delivery log of push notifications (declared when push
	// notifications are on).
	ExtDeliveries = readme + "#delivery-log-v1"
	// ExtWireContract: the machine-readable wire contract of the extended
	// card (added by the HTTP edge, which knows what it serves).
	ExtWireContract = readme + "#wire-contract-v1"
	// ExtFiles: files/createUpload, and large parts kept as files read
	// by presigned URL (declared when the server keeps files).
	ExtFiles = readme + "#files-v1"
)

// extension is one declared extension with its extended-card description.
// Its params are made for the extended card only: the public card, which
// every start-up renders, declares the URI alone.
type extension struct {
	uri, description string
	params           func() map[string]any
}

func extensions(o Options) []extension {
	exts := []extension{
		{ExtSessionBinding, "metadata.shared.session.id binds a message to an agent session; without it, each (caller, contextId) has one session, kept with the context.",
			func() map[string]any {
				return map[string]any{"metadata_field": "metadata.shared.session.id", "default_binding": "one session per (caller, contextId), persisted", "response_field": "metadata.shared.session.id"}
			}},
		{ExtModelSelection, "metadata.shared.model chooses the model of one message/send: providerID and modelID, both or neither (-32602 otherwise).",
			func() map[string]any {
				return map[string]any{"metadata_field": "metadata.shared.model", "fields": []string{"providerID", "modelID"}, "both_or_neither": true}
			}},
		{ExtStreamHints, "Final task payloads carry shared metadata: usage (token counts the agent reports), interrupt and session. This host does not stream.",
			func() map[string]any {
				return map[string]any{"usage_field": "metadata.shared.usage", "interrupt_field": "metadata.shared.interrupt", "session_field": "metadata.shared.session", "streaming": false}
			}},
		{ExtInterrupt, "Answer what an input-required task asks through a2a.interrupt.* methods.",
			func() map[string]any {
				return map[string]any{"methods": []string{a2a.MethodInterruptPermissionReply, a2a.MethodInterruptQuestionReply, a2a.MethodInterruptQuestionReject, a2a.MethodInterruptList}}
			}},
		{ExtTaskFeedback, "tasks/feedback rates a finished task: {taskId, rating 1-5, comment?} -> {ok: true}.",
			func() map[string]any {
				return map[string]any{"methods": []string{a2a.MethodTasksFeedback}, "rating_min": 1, "rating_max": 5}
			}},
		{ExtContexts, "contexts/list pages the caller's contexts, newest first; contexts/clear removes a context's finished tasks.",
			func() map[string]any {
				return map[string]any{"methods": []string{a2a.MethodContextsList, a2a.MethodContextsClear},
					"error_codes": map[string]int{"CONTEXT_NOT_FOUND": int(a2a.CodeContextNotFound), "CONTEXT_NOT_CANCELABLE": int(a2a.CodeContextNotCancelable), "SKILL_NOT_FOUND": int(a2a.CodeSkillNotFound)}}
			}},
		{ExtTaskList, "tasks/list is A2A 1.0's ListTasks under 0.3 (same params and result).",
			func() map[string]any { return map[string]any{"methods": []string{a2a.MethodTasksList}} }},
		{ExtOAP, "OAP base protocol envelopes on POST /orchestrate; envelope_type names a JSON-RPC method of the negotiated A2A version.",
			func() map[string]any {
				return map[string]any{"path": oap.Path, "media_type": oap.ContentType, "required_headers": oap.Headers, "session_header_is_context_id": true}
			}},
		{ExtImplementation, "The host that serves this agent: a2a-lambda, at the version its binary was built from (GET /health reports it too).",
			func() map[string]any {
				return map[string]any{"name": "a2a-lambda", "module": buildinfo.Module, "version": buildinfo.Version()}
			}},
	}
	if f := o.Files; f != nil {
		exts = append(exts, extension{ExtFiles, "Parts larger than inline_limit_bytes are kept as files and read back as file parts whose URL fetches them until it expires; files/createUpload returns a presigned PUT URL for a file of up to max_upload_bytes and the a2a-file: URI to put in a file part.",
			func() map[string]any {
				return map[string]any{"methods": []string{a2a.MethodFilesCreateUpload}, "http_endpoints": []string{"POST " + RESTPath + "/v1/files"}, "uri_scheme": a2a.FileURIScheme,
					"inline_limit_bytes": f.InlineLimitBytes, "max_upload_bytes": f.MaxUploadBytes, "url_ttl_seconds": int(f.URLTTL.Seconds())}
			}})
	}
	if o.PushNotifications {
		exts = append(exts, extension{ExtDeliveries, "tasks/deliveries/list shows every webhook attempt of a task's push notifications; tasks/deliveries/redrive sends the failed (dead-lettered) ones again, signed and checked as the first time, with the same event id.",
			func() map[string]any {
				return map[string]any{"methods": []string{a2a.MethodDeliveriesList, a2a.MethodDeliveriesRedrive},
					"http_endpoints": []string{"GET " + RESTPath + "/v1/tasks/{id}/deliveries", "POST " + RESTPath + "/v1/tasks/{id}/deliveries:redrive"},
					"states":         []string{a2a.DeliveryQueued, a2a.DeliveryRetrying, a2a.DeliveryDelivered, a2a.DeliveryFailed}}
			}})
	}
	return exts
}

// declarations are the public card's extensions: URIs only.
func declarations(o Options) []a2a.AgentExtension {
	exts := extensions(o)
	out := make([]a2a.AgentExtension, len(exts))
	for i, e := range exts {
		out[i] = a2a.AgentExtension{URI: e.uri}
	}
	return out
}

// descriptions are the extended card's extensions, with their params.
func descriptions(o Options) []a2a.AgentExtension {
	exts := extensions(o)
	out := make([]a2a.AgentExtension, len(exts))
	for i, e := range exts {
		out[i] = a2a.AgentExtension{URI: e.uri, Description: e.description, Params: e.params()}
	}
	return out
}
