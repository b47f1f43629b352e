// Package logger gives components their logger when the caller gave none.
package logger

import "log/slog"

// Or returns l, or a logger that discards every record when l is nil: the
// default of every Options.Logger (as clock.Or is of every Options.Clock).
func Or(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
