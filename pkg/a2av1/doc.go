// Package a2av1 is the A2A 1.0 wire format, converted at the HTTP edge to
// and from the one internal model of package a2a (which is 0.3-shaped).
//
// What differs from 0.3 on the wire, and is handled here:
//   - no "kind" discriminators: a part is one object holding exactly one of
//     text, raw (base64), url or data, with optional mediaType and filename;
//   - enums are ProtoJSON names: TASK_STATE_* and ROLE_*;
//   - SendMessage answers {"task": ...} or {"message": ...}, and waits for a
//     terminal or interrupted task unless configuration.returnImmediately;
//   - ListTasks takes pageSize 1-100 (0 means the default, 50), pageToken,
//     statusTimestampAfter and includeArtifacts, and answers {tasks,
//     nextPageToken, pageSize, totalSize};
//   - push notification configs are flattened: {id, taskId, url, token,
//     authentication: {scheme, credentials}};
//   - JSON-RPC error.data is an array holding a google.rpc.ErrorInfo, and
//     REST errors are google.rpc.Status bodies (see errors.go);
//   - push notifications carry a StreamResponse ({"task": ...} or
//     {"statusUpdate": ...}) as application/a2a+json (see push.go).
//
// Decoders turn request bodies into the internal params and report bad
// fields with their 1.0 JSON path as -32602 errors; encoders append the 1.0
// form of internal objects to a byte slice, writing each object once, as
// the 0.3 encoders of package a2a do.
//
// Two conversions lose information, because the internal model cannot hold
// it: mediaType and filename of text and data parts (file parts keep both),
// and all but the first scheme of a 0.3 push config's authentication.
// Data parts must hold a JSON object (0.3 requires one, and the host keeps
// one model for both versions).
package a2av1

// JSON-RPC method names of A2A 1.0.
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodGetTask              = "GetTask"
	MethodListTasks            = "ListTasks"
	MethodCancelTask           = "CancelTask"
	MethodSubscribeToTask      = "SubscribeToTask"
	MethodCreatePushConfig     = "CreateTaskPushNotificationConfig"
	MethodGetPushConfig        = "GetTaskPushNotificationConfig"
	MethodListPushConfigs      = "ListTaskPushNotificationConfigs"
	MethodDeletePushConfig     = "DeleteTaskPushNotificationConfig"
	MethodGetExtendedAgentCard = "GetExtendedAgentCard"
)

// ContentType is the media type of the push notifications sent for
// configs created under 1.0. HTTP+JSON responses are application/json
// (specification section 11).
const ContentType = "application/a2a+json"
