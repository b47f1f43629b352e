// Package interop holds the interoperability tests: A2A clients, servers
// and card readers written by others (github.com/a2aproject/a2a-go v0.3.15,
// and v2.3.1 natively and in its 0.3 mode) against this module's server,
// client, cards and wire codecs. It is a module of its own, so that a
// `go get` of github.com/a2a-lambda/a2a-lambda does not pull a2a-go, gRPC
// and protobuf; `make test` runs it (`cd pkg/interop && go test ./...`).
// Its commands measure the local server side by side with the official
// a2a-go v2 server: cmd/a2ago-echo (that server with an echo agent) and
// cmd/bench-peers, the harness `make bench-peers` runs.
package interop
