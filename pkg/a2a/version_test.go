package a2a

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
	}{
		{"", V03}, {"  ", V03}, {"0.3", V03}, {"0.3.0", V03}, {"0.3.15", V03}, {"v0.3", V03},
		{"1", V10}, {"1.0", V10}, {"1.0.1", V10}, {" 1.0 ", V10},
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
	for _, bad := range []string{"0.2", "0.2.5", "1.1", "2", "2.0", "0.30", "1.00", "latest", "0.3x"} {
		_, err := ParseVersion(bad)
		var ae *Error
		require.True(t, errors.As(err, &ae), "%q", bad)
		assert.Equal(t, CodeVersionNotSupported, ae.Code, "%q", bad)
		assert.Contains(t, ae.Message, "0.3 and 1.0")
		assert.Equal(t, "VERSION_NOT_SUPPORTED", ae.WireReason())
	}
}
