// Package client is a Go client of A2A (Agent2Agent) agents, for protocol
// versions 0.3 and 1.0 over JSON-RPC and HTTP+JSON (REST).
//
// A Client is built for one agent from its base URL (or the URL of its
// card). On first use it fetches the agent card and chooses the interface
// to talk to: the 1.0 supportedInterfaces (protocolVersion 1.x) when the
// card has any, otherwise the 0.3 url/preferredTransport and
// additionalInterfaces, in the card's order of preference. Options.Version
// and Options.Binding restrict the choice; Options.Endpoint skips the card.
// The card is cached and revalidated with If-None-Match.
//
// The model is pkg/a2a's: messages, tasks, artifacts and parameters are the
// 0.3 types whatever the wire; 1.0 shapes (parts without kind, TASK_STATE_*
// and ROLE_* enums, wrapped send results, flattened push configs, the
// A2A-Version header) are converted at the edge.
//
// Errors answered by a server are *Error values carrying the HTTP status
// and, when the server named one, the A2A code and reason: errors.Is works
// with pkg/a2a's sentinels (a2a.ErrTaskNotFound...) and ErrUnauthenticated.
//
// Wait polls a task with backoff until it is terminal or interrupted and
// reports each change (state, status message, new or grown artifacts), which
// is what makes polling feel live in the a2a CLI.
package client
