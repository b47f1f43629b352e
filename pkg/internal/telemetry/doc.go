// Package telemetry joins up what one invocation logs and measures: a
// slog.Handler that adds the invocation's fields (Lambda request id, X-Ray
// trace id, and the bag of pkg/internal/logfields) to every line and
// redacts secrets, and the wrappers (Wrap, HTTP, Middleware) that start
// each invocation's fields and metrics and write its summary line (with
// the duration) and its EMF metrics at the end. Nothing is global: a
// Function value, made once per cold start, holds the cold start flag.
package telemetry
