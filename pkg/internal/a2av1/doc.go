// Package a2av1 is the A2A 1.0 codec: the one description of the 1.0 wire,
// converted to and from the internal model of package a2a by the server (at
// the HTTP edge, in push notification bodies) and by the client (pkg/client,
// the CLI). TestV1RoundTripKeepsEverySchemaField holds it to the official
// JSON Schema: every field the schema defines survives a round trip through
// the model, except the few listed there with their reason.
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
// fields with their 1.0 JSON path as -32602 errors, and read responses
// leniently (decode.go); encoders append the 1.0 form of internal objects to
// a byte slice, writing each object once, as the 0.3 encoders of package
// a2a do (encode.go).
//
// One conversion loses information, because 1.0 cannot hold it: all but
// the first scheme of a 0.3 push config's authentication. Data parts must
// hold a JSON object (0.3 requires one, and the host keeps one model for
// both versions).
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
