package envtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

func TestGetenv(t *testing.T) {
	for name, tc := range map[string]struct {
		kv   []string
		read string
		want string
	}{
		"set":           {[]string{"A", "1", "B", "2"}, "B", "2"},
		"unset":         {[]string{"A", "1"}, "B", ""},
		"empty":         {nil, "A", ""},
		"trailing name": {[]string{"A", "1", "B"}, "B", ""},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, envtest.Getenv(tc.kv...)(tc.read))
		})
	}
}
