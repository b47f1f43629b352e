// Package folder keeps objects in a local directory, for the local server:
// each object is a file, beside a small JSON file of its Info. Its
// presigned URLs are the local server's own (Handler serves them), signed
// with HMAC-SHA256 under a key kept in the directory (created on first
// use, readable by its owner only), so that they outlive a restart as S3's
// do; an expired or forged URL is answered 403 with a JSON body that says
// why.
package folder

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
)

// Path is where Handler is mounted on the local server.
const Path = "/files/"

// Store is a folder of objects. It is safe for concurrent use.
type Store struct {
	dir string
	// base is the URL Handler serves at: objects are base + key.
	base  string
	key   []byte
	clock clock.Clock
}

var _ objectstore.Store = (*Store)(nil)

// Options configure a Store.
type Options struct {
	// Clock tells the time of signatures and their expiry.
	Clock clock.Clock
}

// New returns the store of dir (created if missing), whose signed URLs
// start with publicURL (the local server's base URL) and Path.
func New(dir, publicURL string, o Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o700); err != nil {
		return nil, fmt.Errorf("folder: %w", err)
	}
	key, err := signingKey(filepath.Join(dir, "signing.key"))
	if err != nil {
		return nil, err
	}
	return &Store{dir: dir, base: strings.TrimRight(publicURL, "/") + Path, key: key, clock: clock.Or(o.Clock)}, nil
}

// signingKey reads the key at path, or makes and writes a new one.
func signingKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) == 64 {
		if key, err := hex.DecodeString(string(b)); err == nil {
			return key, nil
		}
	}
	key := make([]byte, 32)
	rand.Read(key)
	if err := os.WriteFile(path, []byte(hex.EncodeToString(key)), 0o600); err != nil {
		return nil, fmt.Errorf("folder: write the signing key: %w", err)
	}
	return key, nil
}

// meta is what the folder keeps beside an object.
type meta struct {
	Size        int64             `json:"size"`
	ContentType string            `json:"contentType,omitempty"`
	SHA256      string            `json:"sha256"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

func (s *Store) path(key string) (string, error) {
	if !objectstore.ValidKey(key) || strings.HasSuffix(key, ".meta") {
		return "", fmt.Errorf("folder: %q is not a valid key", key)
	}
	return filepath.Join(s.dir, "objects", filepath.FromSlash(key)), nil
}

// Put implements objectstore.Store.
func (s *Store) Put(_ context.Context, key string, body io.ReadSeeker, size int64, o objectstore.PutOptions) error {
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	return s.write(key, body, size, o)
}

// write stores exactly size bytes of r at key, checking o.SHA256.
func (s *Store) write(key string, r io.Reader, size int64, o objectstore.PutOptions) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	for k := range o.Metadata {
		if !objectstore.ValidMetadataKey(k) {
			return fmt.Errorf("folder: %q is not a valid metadata key", k)
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, size+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	if n != size {
		return fmt.Errorf("folder: put %s: the content is not %d bytes long", key, size)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if o.SHA256 != "" && !strings.EqualFold(o.SHA256, sum) {
		return fmt.Errorf("folder: put %s: %w", key, objectstore.ErrDigest)
	}
	m, err := json.Marshal(meta{Size: size, ContentType: o.ContentType, SHA256: sum, Metadata: o.Metadata})
	if err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	// The meta first: a reader finds an object only once both are there.
	if err := os.WriteFile(p+".meta", m, 0o600); err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("folder: put %s: %w", key, err)
	}
	return nil
}

// Get implements objectstore.Store.
func (s *Store) Get(_ context.Context, key string) (io.ReadCloser, objectstore.Info, error) {
	in, p, err := s.head(key)
	if err != nil {
		return nil, objectstore.Info{}, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, objectstore.Info{}, fmt.Errorf("folder: %s: %w", key, objectstore.ErrNotFound)
	}
	if err != nil {
		return nil, objectstore.Info{}, fmt.Errorf("folder: get %s: %w", key, err)
	}
	return f, in, nil
}

// Head implements objectstore.Store.
func (s *Store) Head(_ context.Context, key string) (objectstore.Info, error) {
	in, _, err := s.head(key)
	return in, err
}

func (s *Store) head(key string) (objectstore.Info, string, error) {
	p, err := s.path(key)
	if err != nil {
		return objectstore.Info{}, "", err
	}
	b, err := os.ReadFile(p + ".meta")
	if err == nil {
		_, err = os.Stat(p)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return objectstore.Info{}, "", fmt.Errorf("folder: %s: %w", key, objectstore.ErrNotFound)
	}
	if err != nil {
		return objectstore.Info{}, "", fmt.Errorf("folder: head %s: %w", key, err)
	}
	var m meta
	if err := json.Unmarshal(b, &m); err != nil {
		return objectstore.Info{}, "", fmt.Errorf("folder: head %s: %w", key, err)
	}
	return objectstore.Info{Size: m.Size, ContentType: m.ContentType, SHA256: m.SHA256, Metadata: m.Metadata}, p, nil
}

// Delete implements objectstore.Store.
func (s *Store) Delete(_ context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	err = errors.Join(os.Remove(p), os.Remove(p+".meta"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("folder: delete %s: %w", key, err)
	}
	return nil
}

// The query parameters of a signed URL.
const (
	qExpires   = "expires"
	qSize      = "size"
	qSHA256    = "sha256"
	qType      = "type"
	qMeta      = "meta-"
	qSignature = "signature"
)

// PresignGet implements objectstore.Store.
func (s *Store) PresignGet(_ context.Context, key string, ttl time.Duration) (string, error) {
	if _, err := s.path(key); err != nil {
		return "", err
	}
	q := url.Values{qExpires: {s.expires(ttl)}}
	return s.sign(http.MethodGet, key, q), nil
}

// PresignPut implements objectstore.Store: the URL itself carries the
// content's size, SHA-256, type and metadata, under the signature, so a
// client sends the content alone.
func (s *Store) PresignPut(_ context.Context, key string, size int64, o objectstore.PutOptions, ttl time.Duration) (string, http.Header, error) {
	if _, err := s.path(key); err != nil {
		return "", nil, err
	}
	if o.SHA256 == "" || size <= 0 {
		return "", nil, errors.New("folder: a presigned PUT needs the content's size and SHA-256")
	}
	q := url.Values{qExpires: {s.expires(ttl)}, qSize: {strconv.FormatInt(size, 10)}, qSHA256: {strings.ToLower(o.SHA256)}}
	h := http.Header{}
	if o.ContentType != "" {
		q.Set(qType, o.ContentType)
		h.Set("Content-Type", o.ContentType)
	}
	for k, v := range o.Metadata {
		if !objectstore.ValidMetadataKey(k) {
			return "", nil, fmt.Errorf("folder: %q is not a valid metadata key", k)
		}
		q.Set(qMeta+k, v)
	}
	return s.sign(http.MethodPut, key, q), h, nil
}

func (s *Store) expires(ttl time.Duration) string {
	return strconv.FormatInt(s.clock.Now().Add(ttl).Unix(), 10)
}

// sign returns the URL of key with q and its signature.
func (s *Store) sign(method, key string, q url.Values) string {
	q.Set(qSignature, s.signature(method, key, q))
	return s.base + key + "?" + q.Encode()
}

// signature is the HMAC of the method, the key and every parameter but
// the signature, in order.
func (s *Store) signature(method, key string, q url.Values) string {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, method+"\n"+key+"\n")
	names := make([]string, 0, len(q))
	for k := range q {
		if k != qSignature {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		io.WriteString(m, k+"="+q.Get(k)+"\n")
	}
	return hex.EncodeToString(m.Sum(nil))
}

// Handler serves the store's signed URLs at Path: GET reads an object, PUT
// stores one (exactly the size and SHA-256 the URL was signed for). A URL
// that is forged, altered, expired or used with another method is
// answered 403; a missing object 404; content of the wrong size or hash
// 400. Every error has a JSON body that says why.
func (s *Store) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.URL.Path, Path)
		q := r.URL.Query()
		method := r.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		if !hmac.Equal([]byte(q.Get(qSignature)), []byte(s.signature(method, key, q))) {
			deny(w, http.StatusForbidden, "PERMISSION_DENIED", "the URL's signature does not match: use the URL exactly as the server gave it, with the method it was made for")
			return
		}
		exp, _ := strconv.ParseInt(q.Get(qExpires), 10, 64)
		if at := time.Unix(exp, 0); !s.clock.Now().Before(at) {
			deny(w, http.StatusForbidden, "PERMISSION_DENIED", "the URL expired at "+at.UTC().Format(time.RFC3339)+": read the task again (tasks/get) for a fresh one, or ask for a new upload URL")
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			s.serveGet(w, r, key)
		case http.MethodPut:
			s.servePut(w, r, key, q)
		default:
			deny(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", r.Method+" is not allowed")
		}
	})
}

func (s *Store) serveGet(w http.ResponseWriter, r *http.Request, key string) {
	rc, in, err := s.Get(r.Context(), key)
	if errors.Is(err, objectstore.ErrNotFound) {
		deny(w, http.StatusNotFound, "NOT_FOUND", "no such file: it expired or was never stored")
		return
	}
	if err != nil {
		deny(w, http.StatusInternalServerError, "INTERNAL", err.Error())
		return
	}
	defer rc.Close()
	if in.ContentType != "" {
		w.Header().Set("Content-Type", in.ContentType)
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.FormatInt(in.Size, 10))
	if r.Method == http.MethodHead {
		return
	}
	io.Copy(w, rc)
}

func (s *Store) servePut(w http.ResponseWriter, r *http.Request, key string, q url.Values) {
	size, _ := strconv.ParseInt(q.Get(qSize), 10, 64)
	if r.ContentLength != size {
		deny(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("the content must be exactly %d bytes long (Content-Length %d)", size, r.ContentLength))
		return
	}
	o := objectstore.PutOptions{ContentType: q.Get(qType), SHA256: q.Get(qSHA256)}
	for k, v := range q {
		if m, ok := strings.CutPrefix(k, qMeta); ok && len(v) > 0 {
			if o.Metadata == nil {
				o.Metadata = map[string]string{}
			}
			o.Metadata[m] = v[0]
		}
	}
	err := s.write(key, r.Body, size, o)
	switch {
	case errors.Is(err, objectstore.ErrDigest):
		deny(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the content's SHA-256 is not "+o.SHA256+", which the upload was made for")
	case err != nil:
		deny(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the content could not be stored: "+err.Error())
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// deny answers an error in the shape of the server's other HTTP errors.
func deny(w http.ResponseWriter, code int, status, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "status": status, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}
