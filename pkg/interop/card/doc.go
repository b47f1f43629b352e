// Package card holds the interoperability tests of pkg/card against
// github.com/a2aproject/a2a-go (v0.3.15 and v2.3.1).
package card
