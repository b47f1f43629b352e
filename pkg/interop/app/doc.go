// Package app holds the interoperability tests of the local server (see
// pkg/internal/app): the official a2a-go clients of both protocol versions drive it
// over real HTTP, and the conformance agent is checked against the 1.0
// JSON Schema and client.
package app
