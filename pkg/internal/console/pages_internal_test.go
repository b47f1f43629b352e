package console

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The templates are parsed at the first page served, not by New: a
// broken one must fail here, not in a user's browser.
func TestEveryPageParses(t *testing.T) {
	pages, err := parsePages()
	require.NoError(t, err)
	for _, page := range []string{"tasks", "task", "login", "message", "error"} {
		p := pages[page]
		require.NotNil(t, p, page)
		assert.NotNil(t, p.Lookup("layout.html"), "%s has the layout", page)
		assert.NotNil(t, p.Lookup("live"), "%s has its live part", page)
	}
}

// BenchmarkParsePages is what the first page served pays once.
func BenchmarkParsePages(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parsePages(); err != nil {
			b.Fatal(err)
		}
	}
}
