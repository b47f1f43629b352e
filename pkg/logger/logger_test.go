package logger_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
)

func TestOr(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	assert.Same(t, l, logger.Or(l), "a given logger is kept")

	discard := logger.Or(nil)
	assert.NotNil(t, discard)
	assert.False(t, discard.Enabled(context.Background(), slog.LevelError), "the default logs nothing")
}
