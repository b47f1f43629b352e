// Package a2av1 holds the interoperability tests of pkg/internal/a2av1 against
// github.com/a2aproject/a2a-go (v0.3.15 and v2.3.1).
package a2av1
