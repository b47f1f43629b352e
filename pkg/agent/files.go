package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Files gives a step the content of file parts and keeps large content the
// agent makes. The host sets StepInput.Files.
//
// A file part carries its content inline (bytes), or names it by URI: a
// file the host keeps (a2a-file:..., the parts too large for a task item,
// and uploads), or a file elsewhere (https://...). Open reads all three
// alike. The host keeps the content of any part above its inline limit in
// its file store (S3, locally a folder) whatever the agent does: an agent
// may put large content in an artifact inline (File), or Store a stream
// first and put the part it returns in the artifact.
type Files interface {
	// Open returns the content of a file part, which the caller closes:
	// its inline bytes, a file the host keeps, or an https URI, fetched
	// under the egress rules of push notifications (no loopback, private,
	// link-local or metadata addresses; no redirects). Content above the
	// host's upload limit is an error.
	Open(ctx context.Context, p a2a.Part) (io.ReadCloser, error)
	// Store keeps r's content (at most the host's upload limit) and
	// returns a file part with name and mediaType that holds it: inline
	// when it is small, else naming a file the host keeps.
	Store(ctx context.Context, r io.Reader, name, mediaType string) (a2a.Part, error)
}

// ErrNotAFile is returned for a part that holds no file.
var ErrNotAFile = errors.New("the part holds no file")

// ReadFile returns the whole content of a file part, whatever keeps it
// (see Files.Open). Without Files (a StepInput made by hand) it reads
// inline content only.
func (in *StepInput) ReadFile(ctx context.Context, p a2a.Part) ([]byte, error) {
	if in.Files == nil {
		rc, err := InlineFile(p)
		if err != nil {
			return nil, err
		}
		return io.ReadAll(rc)
	}
	rc, err := in.Files.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// InlineFile returns the inline content of a file part; a part that names
// its content by URI is an error.
func InlineFile(p a2a.Part) (io.ReadCloser, error) {
	if p.Kind != a2a.PartKindFile || p.File == nil {
		return nil, ErrNotAFile
	}
	if p.File.URI != "" {
		return nil, fmt.Errorf("the file %s is not inline: read it with StepInput.Files", p.File.URI)
	}
	b, err := base64.StdEncoding.DecodeString(p.File.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the file's bytes are not valid base64: %w", err)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// File returns a file part holding data inline; the host keeps it in its
// file store when it is above the inline limit.
func File(data []byte, name, mediaType string) a2a.Part {
	return a2a.FileBytesPart(base64.StdEncoding.EncodeToString(data), name, mediaType)
}
