// Package a2a is the protocol model of the Agent2Agent (A2A) protocol as this
// host speaks it: tasks, messages, parts, artifacts, agent cards, push
// notification configs, request parameters, task states and typed errors.
//
// The model holds what both protocol versions carry (a text or data part's
// mediaType and filename are 1.0's). This package is the A2A 0.3 codec
// (encode.go, decode.go): the AppendJSON methods write the 0.3 wire form,
// the default of the server (no A2A-Version header means 0.3), of the
// client and of 0.3 push notifications; the MarshalJSON methods write the
// model's own JSON, the wire form plus what 0.3 has no room for, which
// stores and queues keep. Package a2av1 is the 1.0 codec of the same types.
// Both are used by the server (pkg/httpapi, push bodies) and the client
// (pkg/client, the CLI). Below the edge only a push notification config
// keeps a Version: the one it was registered under, which shapes its
// notifications.
//
// Decoding is lenient where clients in the wild differ (a missing "kind" on a
// part is inferred from its fields) and strict where the protocol is clear
// (roles, exactly one of bytes or uri on a file, required ids). Validate
// reports the first problem with the JSON path of the offending field.
package a2a
