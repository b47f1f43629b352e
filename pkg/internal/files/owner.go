package files

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// ForOwner returns the agent.Files of a step of owner's task.
func (f *Files) ForOwner(owner string) agent.Files { return ownerFiles{f: f, owner: owner} }

// ownerFiles is agent.Files for one owner's task.
type ownerFiles struct {
	f     *Files
	owner string
}

// Open implements agent.Files.
func (o ownerFiles) Open(ctx context.Context, p a2a.Part) (io.ReadCloser, error) {
	if p.Kind != a2a.PartKindFile || p.File == nil {
		return nil, agent.ErrNotAFile
	}
	uri := p.File.URI
	if uri == "" {
		return agent.InlineFile(p)
	}
	r, ok, err := parseRef(uri)
	switch {
	case ok && err != nil:
		return nil, err
	case ok && o.f.store == nil:
		return nil, fmt.Errorf("%s names a file this server keeps, but it keeps none", uri)
	case ok && r.owner != ownerKey(o.owner):
		return nil, fmt.Errorf("%s is not a file of the task's caller", uri)
	case ok:
		rc, _, err := o.f.store.Get(ctx, r.key())
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", uri, err)
		}
		return rc, nil
	}
	return o.f.fetchHTTPS(ctx, uri)
}

// fetchHTTPS fetches an https file under the egress policy, at most the
// upload limit.
func (f *Files) fetchHTTPS(ctx context.Context, uri string) (io.ReadCloser, error) {
	u, err := f.egress.CheckURL(uri)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", uri, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", uri, err)
	}
	resp, err := f.fetch.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("fetch %s: HTTP %d", u.Redacted(), resp.StatusCode)
	}
	if resp.ContentLength > f.maxUpload {
		resp.Body.Close()
		return nil, fmt.Errorf("fetch %s: %d bytes exceeds the file limit of %d bytes", u.Redacted(), resp.ContentLength, f.maxUpload)
	}
	return &limited{r: io.LimitReader(resp.Body, f.maxUpload+1), c: resp.Body, limit: f.maxUpload}, nil
}

// limited reads at most limit bytes and fails beyond.
type limited struct {
	r     io.Reader
	c     io.Closer
	n     int64
	limit int64
}

func (l *limited) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		return n, fmt.Errorf("the file exceeds the limit of %d bytes", l.limit)
	}
	return n, err
}

func (l *limited) Close() error { return l.c.Close() }

// Store implements agent.Files: the content is spooled to a temporary file
// (hashed on the way), then kept inline when it is small, else stored.
func (o ownerFiles) Store(ctx context.Context, r io.Reader, name, mediaType string) (a2a.Part, error) {
	f := o.f
	tmp, err := os.CreateTemp("", "a2a-file-*")
	if err != nil {
		return a2a.Part{}, fmt.Errorf("store file: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, f.maxUpload+1))
	if err != nil {
		return a2a.Part{}, fmt.Errorf("store file: %w", err)
	}
	if n > f.maxUpload {
		return a2a.Part{}, fmt.Errorf("store file: the content exceeds the file limit of %d bytes", f.maxUpload)
	}
	if f.store == nil || base64.StdEncoding.EncodedLen(int(n)) <= f.inlineLimit {
		b, err := os.ReadFile(tmp.Name())
		if err != nil {
			return a2a.Part{}, fmt.Errorf("store file: %w", err)
		}
		return agent.File(b, name, mediaType), nil
	}
	ref, err := f.put(ctx, o.owner, tmp, n, hex.EncodeToString(h.Sum(nil)), mediaType)
	if err != nil {
		return a2a.Part{}, err
	}
	return a2a.FileURIPart(ref.uri(), name, mediaType), nil
}
