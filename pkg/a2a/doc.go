// Package a2a is the protocol model of the Agent2Agent (A2A) protocol as this
// host speaks it: tasks, messages, parts, artifacts, agent cards, push
// notification configs, request parameters, task states and typed errors.
//
// The Go types marshal to the A2A 0.3 JSON wire format, which is the default
// wire format of the server (no A2A-Version header means 0.3). The A2A 1.0
// format is produced from the same types by package a2av1, at the HTTP edge
// and in the client. Below the edge only a push notification config keeps a
// Version: the one it was registered under, which shapes its notifications.
//
// Decoding is lenient where clients in the wild differ (a missing "kind" on a
// part is inferred from its fields) and strict where the protocol is clear
// (roles, exactly one of bytes or uri on a file, required ids). Validate
// reports the first problem with the JSON path of the offending field.
package a2a
