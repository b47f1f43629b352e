package files_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
)

// FuzzFileURI: whatever URI a client's file part names, Accept never
// panics; a URI of the a2a-file scheme that names no upload of the caller
// is -32602 naming the part, and any other URI passes through unchanged.
func FuzzFileURI(f *testing.F) {
	for _, s := range []string{"a2a-file:0123456789abcdef0123456789abcdef/0123456789abcdef0123456789abcdef", "a2a-file:", "a2a-file:x/y",
		"a2a-file:../../etc/passwd", "https://example.com/a.pdf", "A2A-FILE:abc", "a2a-file:0123456789abcdef0123456789abcdef/..%2f"} {
		f.Add(s)
	}
	dir := f.TempDir()
	e := newEnvAt(f, dir)
	f.Fuzz(func(t *testing.T, uri string) {
		parts := []a2a.Part{a2a.FileURIPart(uri, "", "")}
		out, kept, err := e.Accept(context.Background(), "alice", "params.message.parts", parts)
		if !strings.HasPrefix(uri, a2a.FileURIScheme+":") {
			if err != nil || len(kept) > 0 || out[0].File.URI != uri {
				t.Fatalf("%q: want it unchanged, got %v, %v, %v", uri, out, kept, err)
			}
			return
		}
		var ae *a2a.Error
		if !errors.As(err, &ae) || ae.Code != a2a.CodeInvalidParams || !strings.Contains(ae.Message, "params.message.parts[0].file.uri") {
			t.Fatalf("%q: want -32602 naming the part, got %v", uri, err)
		}
	})
}

// newEnvAt is Files on a folder in dir (no server: URLs are not fetched).
func newEnvAt(tb testing.TB, dir string) *files.Files {
	tb.Helper()
	s, err := folderAt(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return files.New(files.Options{Store: s})
}
