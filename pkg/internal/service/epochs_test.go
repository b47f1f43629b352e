package service_test

import (
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
)

// TestAcrossEpochs runs the whole suite again with its clocks far in the
// past and far in the future: nothing here may depend on today's date.
func TestAcrossEpochs(t *testing.T) { clocktest.RunAcrossEpochs(t, ".") }
