// Package card holds the interoperability tests of the agent card (pkg/a2a's
// AgentCard and the cards pkg/internal/card builds) against
// github.com/a2aproject/a2a-go (v0.3.15 and v2.3.1).
package card
