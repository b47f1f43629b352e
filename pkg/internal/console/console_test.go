package console_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/console"
)

// New is never asked to serve here: the embedded interfaces stand for a
// service and an authenticator.
type (
	service struct{ console.Service }
	authn   struct{ console.Authenticator }
)

// The local server builds the console at every start; its routes wait for
// the first request.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, err := console.New(console.Options{Service: service{}, Auth: authn{}})
		require.NoError(b, err)
	}
}
