package cli

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
)

// InlineFileBytes is the largest file "a2a send --file" sends inside the
// message; a larger one is uploaded first (files/createUpload) and named by
// its URI.
const InlineFileBytes = 256 << 10

// paths collects repeated --file flags.
type paths []string

func (p *paths) String() string     { return strings.Join(*p, ", ") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

// fileParts returns a file part per path: inline when the file is small,
// else uploaded first.
func (r *runner) fileParts(ctx context.Context, c *client.Client, files []string) ([]a2a.Part, error) {
	var parts []a2a.Part
	for _, path := range files {
		p, err := r.filePart(ctx, c, path)
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", path, err)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func (r *runner) filePart(ctx context.Context, c *client.Client, path string) (a2a.Part, error) {
	f, err := os.Open(path)
	if err != nil {
		return a2a.Part{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return a2a.Part{}, err
	}
	if !st.Mode().IsRegular() {
		return a2a.Part{}, errors.New("not a regular file")
	}
	name := filepath.Base(path)
	mediaType := mime.TypeByExtension(filepath.Ext(name))
	if mediaType == "" {
		mediaType = "application/octet-stream"
	}
	if st.Size() <= InlineFileBytes {
		b, err := io.ReadAll(f)
		if err != nil {
			return a2a.Part{}, err
		}
		return a2a.FileBytesPart(base64.StdEncoding.EncodeToString(b), name, mediaType), nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return a2a.Part{}, err
	}
	var up a2a.FileUploadResult
	err = c.CallJSONRPC(ctx, a2a.MethodFilesCreateUpload, a2a.FileUploadParams{Name: name, MediaType: mediaType, Size: st.Size(), SHA256: hex.EncodeToString(h.Sum(nil))}, &up)
	if err != nil {
		return a2a.Part{}, fmt.Errorf("%d bytes are more than a message carries inline, and the agent did not give an upload URL: %w", st.Size(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return a2a.Part{}, err
	}
	if err := r.upload(ctx, &up, f, st.Size()); err != nil {
		return a2a.Part{}, err
	}
	return a2a.FileURIPart(up.URI, name, mediaType), nil
}

// upload PUTs the file to the upload URL, without the bearer token: the
// URL carries its own signature.
func (r *runner) upload(ctx context.Context, up *a2a.FileUploadResult, body io.Reader, size int64) error {
	req, err := http.NewRequestWithContext(ctx, cmp.Or(up.Method, http.MethodPut), up.UploadURL, body)
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	req.ContentLength = size
	for k, v := range up.Headers {
		req.Header.Set(k, v)
	}
	resp, err := r.do(req)
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("upload: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}
