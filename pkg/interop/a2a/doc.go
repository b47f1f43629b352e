// Package a2a holds the interoperability tests of pkg/a2a against
// github.com/a2aproject/a2a-go (v0.3.15 and v2.3.1).
package a2a
