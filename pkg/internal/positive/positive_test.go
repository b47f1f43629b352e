package positive_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

func TestOr(t *testing.T) {
	for name, tc := range map[string]struct{ v, want time.Duration }{
		"set":      {time.Second, time.Second},
		"zero":     {0, time.Minute},
		"negative": {-time.Second, time.Minute},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, positive.Or(tc.v, time.Minute))
		})
	}
	assert.Equal(t, 3, positive.Or(0, 3), "counts too")
	assert.Equal(t, int64(7), positive.Or(int64(7), 3))
}
