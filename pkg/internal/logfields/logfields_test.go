package logfields_test

import (
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
)

// fields returns the fields of ctx, in order (EachField), nil without
// any.
func fields(ctx context.Context) []slog.Attr {
	var all []slog.Attr
	logfields.EachField(ctx, func(a slog.Attr) bool {
		all = append(all, a)
		return true
	})
	return all
}

func TestBag(t *testing.T) {
	ctx := logfields.WithFields(context.Background())
	assert.Equal(t, ctx, logfields.WithFields(ctx), "a context keeps its bag")
	logfields.Add(ctx, logfields.FieldMethod, "tasks/get", logfields.FieldColdStart, true, "empty", "")
	logfields.AddAttrs(ctx, slog.String(logfields.FieldFunction, "send"), slog.String(logfields.FieldMethod, "GetTask"), slog.String("", "no key"))
	logfields.AddTask(ctx, "t-1", "c-1")
	assert.Equal(t, "GetTask", logfields.Get(ctx, logfields.FieldMethod), "a later value replaces an earlier one")
	assert.Equal(t, []slog.Attr{
		slog.String(logfields.FieldMethod, "GetTask"), slog.Bool(logfields.FieldColdStart, true), slog.String(logfields.FieldFunction, "send"),
		slog.String(logfields.FieldTaskID, "t-1"), slog.String(logfields.FieldContextID, "c-1"),
	}, fields(ctx), "in the order first added; empty keys and empty strings skipped")

	for i := range 20 {
		logfields.AddAttrs(ctx, slog.Int("n"+strconv.Itoa(i), i))
	}
	assert.Len(t, fields(ctx), 25, "a bag grows past its inline room")

	type key struct{}
	child, cancel := context.WithCancel(context.WithValue(ctx, key{}, "v"))
	defer cancel()
	assert.Equal(t, "v", child.Value(key{}), "values below and above the bag are found")
	assert.Equal(t, "GetTask", logfields.Get(child, logfields.FieldMethod))

	var keys []string
	logfields.EachField(child, func(a slog.Attr) bool {
		keys = append(keys, a.Key)
		return a.Key != logfields.FieldTaskID
	})
	assert.Equal(t, []string{logfields.FieldMethod, logfields.FieldColdStart, logfields.FieldFunction, logfields.FieldTaskID}, keys,
		"each field in order, until fn returns false")

	bare := context.Background()
	logfields.Add(bare, logfields.FieldMethod, "x")
	assert.Empty(t, logfields.Get(bare, logfields.FieldMethod), "without a bag nothing is kept")
	assert.Nil(t, fields(bare))
}

// A usual invocation's fields cost one allocation, and reading them in
// place none.
func TestBagAllocations(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		ctx := logfields.WithFields(context.Background())
		logfields.AddAttrs(ctx, slog.String(logfields.FieldFunction, "local"), slog.Bool(logfields.FieldColdStart, false),
			slog.String(logfields.FieldCaller, "e3283c7280b2e5d9"), slog.String(logfields.FieldVersion, "1.0"), slog.String(logfields.FieldMethod, "SendMessage"))
		logfields.AddTask(ctx, "2eb51973-85e8-8c94-8774-41804b550374", "5a5e646e-f22f-42be-ad12-d0e895ac4141")
		n := 0
		logfields.EachField(ctx, func(slog.Attr) bool { n++; return true })
		if n != 7 {
			t.Fatalf("%d fields in place", n)
		}
	})
	assert.Equal(t, 1.0, allocs, "the bag and the context that carries it, together")
}
