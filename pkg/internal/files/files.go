// Package files keeps the content parts too large for a task item in an
// object store (pkg/internal/objectstore: S3, or locally a folder), so that a task
// item stays small whatever its messages and artifacts carry.
//
// A part whose JSON encoding is above the inline limit (text, data, or a
// file's inline bytes) is stored as an object and replaced, in the task,
// by a file part naming it with an a2a-file: URI, its file name and media
// type kept (text/plain for text, application/json for data). Reads show
// such parts with a presigned URL instead, which fetches the content
// without credentials until it expires. Clients upload files larger than a
// request can carry before the message that names them: CreateUpload
// returns a presigned PUT URL bound to the file's size and SHA-256, and the
// a2a-file: URI to put in the file part; the object is checked against
// both before the message is accepted.
//
// Every file belongs to a caller: its URI and key carry a hash of the
// caller's identity, and a message, or an agent's output, may only name
// its own caller's files.
package files

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
)

// fetchTimeout bounds fetching an https file for an agent.
const fetchTimeout = 5 * time.Minute

// Options configure Files.
type Options struct {
	// Store keeps the files; nil keeps none: large parts stay inline (and
	// a task store refuses what it cannot hold), and a2a-file: URIs are
	// refused.
	Store objectstore.Store
	// InlineLimit: a part whose encoding is larger is stored
	// (A2A_FILES_INLINE_LIMIT_BYTES); URLTTL is the lifetime of a
	// presigned URL (A2A_FILES_URL_TTL_SECONDS); MaxUploadBytes bounds a
	// file (A2A_FILES_MAX_UPLOAD_BYTES). Zero takes the configuration's
	// default (config.DefaultFilesInlineLimit and so on).
	InlineLimit    int
	URLTTL         time.Duration
	MaxUploadBytes int64
	// MaxInline bounds the inline parts of one message or artifact
	// together: when they are larger, the largest are stored too, until
	// they fit (0: no bound).
	MaxInline int
	// Egress is the policy of fetching https files for agents (the push
	// notifications' policy); HTTPClient, when set, fetches them instead
	// (tests).
	Egress     egress.Policy
	HTTPClient *http.Client
	Clock      clock.Clock
	Logger     *slog.Logger
}

// Files stores and reads the files of tasks. It is safe for concurrent use.
type Files struct {
	store       objectstore.Store
	inlineLimit int
	maxInline   int
	ttl         time.Duration
	maxUpload   int64
	fetch       *http.Client
	egress      egress.Policy
	clock       clock.Clock
	log         *slog.Logger
}

// New returns Files with o.
func New(o Options) *Files {
	f := &Files{store: o.Store, inlineLimit: o.InlineLimit, maxInline: o.MaxInline, ttl: o.URLTTL, maxUpload: o.MaxUploadBytes,
		fetch: o.HTTPClient, egress: o.Egress, clock: clock.Or(o.Clock), log: cmp.Or(o.Logger, slog.New(slog.DiscardHandler))}
	f.inlineLimit = positive.Or(f.inlineLimit, config.DefaultFilesInlineLimit)
	f.ttl = positive.Or(f.ttl, config.DefaultFilesURLTTL)
	f.maxUpload = positive.Or(f.maxUpload, config.DefaultFilesMaxUploadBytes)
	if f.fetch == nil {
		f.fetch = egress.NewClient(o.Egress, fetchTimeout)
	}
	return f
}

// Enabled reports whether files are kept (a store is configured).
func (f *Files) Enabled() bool { return f.store != nil }

// InlineLimit is the largest part kept inline, in bytes of its encoding.
func (f *Files) InlineLimit() int { return f.inlineLimit }

// URLTTL is the lifetime of presigned URLs.
func (f *Files) URLTTL() time.Duration { return f.ttl }

// MaxUploadBytes bounds a file.
func (f *Files) MaxUploadBytes() int64 { return f.maxUpload }

// ownerKey is the part of a caller's files' URIs and keys that names the
// caller: 128 bits of a hash of its identity.
func ownerKey(owner string) string {
	sum := sha256.Sum256([]byte("a2a-lambda files owner\x00" + owner))
	return hex.EncodeToString(sum[:16])
}

// ref is a file the host keeps, as its URI names it.
type ref struct{ owner, id string }

func (r ref) uri() string { return a2a.FileURIScheme + ":" + r.owner + "/" + r.id }
func (r ref) key() string { return "files/" + r.owner + "/" + r.id }

// newRef names a new file of owner.
func newRef(owner string) ref {
	var b [16]byte
	rand.Read(b[:])
	return ref{owner: ownerKey(owner), id: hex.EncodeToString(b[:])}
}

// parseRef reads an a2a-file: URI; ok is false for any other URI, and err
// says what is wrong with a malformed one.
func parseRef(uri string) (r ref, ok bool, err error) {
	rest, found := strings.CutPrefix(uri, a2a.FileURIScheme+":")
	if !found {
		return ref{}, false, nil
	}
	o, id, _ := strings.Cut(rest, "/")
	if !isHex(o, 32) || !isHex(id, 32) {
		return ref{}, true, fmt.Errorf("%q is not a file URI this server made (%s:<owner>/<id>)", uri, a2a.FileURIScheme)
	}
	return ref{owner: o, id: id}, true, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Object metadata: the size and SHA-256 a file was stored or uploaded
// with.
const (
	metaSize   = "size"
	metaSHA256 = "sha256"
)

// Accept readies the parts of a client's message, at path (such as
// "params.message.parts"), for the task store: a part naming one of the
// caller's files is checked (the file exists, and its content has the size
// and SHA-256 its upload declared); a part above the inline limit is
// stored. It returns the parts to store, and the keys of the objects it
// stored, for the caller to Discard when the parts are not stored.
func (f *Files) Accept(ctx context.Context, owner, path string, parts []a2a.Part) ([]a2a.Part, []string, error) {
	for i := range parts {
		if err := f.checkClientRef(ctx, owner, path, i, &parts[i]); err != nil {
			return nil, nil, err
		}
	}
	out, kept, err := f.offload(ctx, owner, parts)
	if err != nil {
		return nil, nil, fmt.Errorf("store the large parts of %s: %w", path, err)
	}
	return out, kept, nil
}

// Offload readies the parts of an agent's message or artifact for the task
// store, as Accept does a client's: a part above the inline limit is
// stored, and the parts must pass CheckOwned.
func (f *Files) Offload(ctx context.Context, owner string, parts []a2a.Part) ([]a2a.Part, []string, error) {
	if err := f.CheckOwned(owner, parts); err != nil {
		return nil, nil, err
	}
	return f.offload(ctx, owner, parts)
}

// CheckOwned reports a part among an agent's that names a file the host
// keeps other than one of owner's (the task's caller's), or with a
// malformed a2a-file: URI.
func (f *Files) CheckOwned(owner string, parts []a2a.Part) error {
	for i := range parts {
		r, ok, err := partRef(&parts[i])
		if !ok {
			continue
		}
		if err == nil && r.owner != ownerKey(owner) {
			err = fmt.Errorf("%s names a file of another caller", r.uri())
		}
		if err != nil {
			return fmt.Errorf("part %d: %w", i, err)
		}
	}
	return nil
}

// partRef is the file the host keeps that p names, if any.
func partRef(p *a2a.Part) (ref, bool, error) {
	if p.Kind != a2a.PartKindFile || p.File == nil || p.File.URI == "" {
		return ref{}, false, nil
	}
	return parseRef(p.File.URI)
}

// checkClientRef checks a client's part that names a file the host keeps;
// the part is path[i] of the request, named in the errors.
func (f *Files) checkClientRef(ctx context.Context, owner, path string, i int, p *a2a.Part) error {
	r, ok, err := partRef(p)
	if !ok {
		return nil
	}
	field := fmt.Sprintf("%s[%d].file.uri", path, i)
	if err != nil {
		return a2a.InvalidParams(field, "%s", err.Error())
	}
	if f.store == nil {
		return a2a.InvalidParams(field, "names a file this server keeps, but it keeps none (no file store is configured)")
	}
	if r.owner != ownerKey(owner) {
		return a2a.InvalidParams(field, "%q is not one of your files", r.uri())
	}
	in, err := f.store.Head(ctx, r.key())
	if errors.Is(err, objectstore.ErrNotFound) {
		return a2a.InvalidParams(field, "%q holds no file: PUT its content to the uploadUrl that %s gave (within %s) before you send the message, or the file expired",
			r.uri(), a2a.MethodFilesCreateUpload, f.ttl)
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", r.uri(), err)
	}
	return f.checkContent(ctx, field, r, in)
}

// checkContent compares a file's content with the size and SHA-256 it was
// stored or uploaded with, reading it to hash it when the store did not.
func (f *Files) checkContent(ctx context.Context, field string, r ref, in objectstore.Info) error {
	size, err := strconv.ParseInt(in.Metadata[metaSize], 10, 64)
	want := in.Metadata[metaSHA256]
	if err != nil || want == "" {
		return a2a.InvalidParams(field, "%q was not stored through this server", r.uri())
	}
	if in.Size != size {
		return a2a.InvalidParams(field, "the file %q holds %d bytes, not the %d its upload declared: upload it again", r.uri(), in.Size, size)
	}
	got := in.SHA256
	if got == "" {
		rc, _, err := f.store.Get(ctx, r.key())
		if err != nil {
			return fmt.Errorf("read %s: %w", r.uri(), err)
		}
		h := sha256.New()
		_, err = io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", r.uri(), err)
		}
		got = hex.EncodeToString(h.Sum(nil))
	}
	if got != want {
		return a2a.InvalidParams(field, "the content of %q does not match the SHA-256 its upload declared (%s): upload it again", r.uri(), want)
	}
	return nil
}

// offload stores the parts above the inline limit, then, while the inline
// parts together are above MaxInline, the largest of them. Without a store
// it changes nothing.
func (f *Files) offload(ctx context.Context, owner string, parts []a2a.Part) ([]a2a.Part, []string, error) {
	if f.store == nil {
		return parts, nil, nil
	}
	var (
		out   []a2a.Part
		kept  []string
		total int
	)
	store := func(i int) error {
		if out == nil {
			out = slices.Clone(parts)
		}
		p, key, err := f.storePart(ctx, owner, &out[i])
		if err != nil {
			return err
		}
		total -= out[i].ApproxSize()
		total += p.ApproxSize()
		out[i] = p
		kept = append(kept, key)
		return nil
	}
	for i := range parts {
		n := parts[i].ApproxSize()
		total += n
		if n > f.inlineLimit && storable(&parts[i]) {
			if err := store(i); err != nil {
				f.Discard(ctx, kept)
				return nil, nil, err
			}
		}
	}
	for f.maxInline > 0 && total > f.maxInline {
		cur := parts
		if out != nil {
			cur = out
		}
		largest := -1
		for i := range cur {
			if storable(&cur[i]) && (largest < 0 || cur[i].ApproxSize() > cur[largest].ApproxSize()) {
				largest = i
			}
		}
		if largest < 0 {
			break // what is left is small; the task store says if it fits
		}
		if err := store(largest); err != nil {
			f.Discard(ctx, kept)
			return nil, nil, err
		}
	}
	if out == nil {
		return parts, nil, nil
	}
	return out, kept, nil
}

// storable reports whether p carries content inline that a file can hold.
func storable(p *a2a.Part) bool {
	switch p.Kind {
	case a2a.PartKindText:
		return p.Text != ""
	case a2a.PartKindData:
		return len(p.Data) > 0
	case a2a.PartKindFile:
		return p.File != nil && p.File.Bytes != ""
	}
	return false
}

// storePart stores the content of p and returns the file part that names
// it, and its key.
func (f *Files) storePart(ctx context.Context, owner string, p *a2a.Part) (a2a.Part, string, error) {
	var (
		data            []byte
		name, mediaType string
	)
	switch p.Kind {
	case a2a.PartKindText:
		data, mediaType = []byte(p.Text), "text/plain"
	case a2a.PartKindData:
		data, mediaType = p.Data, "application/json"
	default:
		b, err := base64.StdEncoding.DecodeString(p.File.Bytes)
		if err != nil {
			return a2a.Part{}, "", fmt.Errorf("a file's bytes are not valid base64: %w", err)
		}
		data, name, mediaType = b, p.File.Name, p.File.MimeType
	}
	sum := sha256.Sum256(data)
	r, err := f.put(ctx, owner, bytes.NewReader(data), int64(len(data)), hex.EncodeToString(sum[:]), mediaType)
	if err != nil {
		return a2a.Part{}, "", err
	}
	out := a2a.FileURIPart(r.uri(), name, mediaType)
	out.Metadata = p.Metadata
	return out, r.key(), nil
}

// put stores size bytes of body, whose SHA-256 is sum, as a new file of
// owner.
func (f *Files) put(ctx context.Context, owner string, body io.ReadSeeker, size int64, sum, mediaType string) (ref, error) {
	r := newRef(owner)
	err := f.store.Put(ctx, r.key(), body, size, putOptions(size, sum, mediaType))
	if err != nil {
		return ref{}, fmt.Errorf("store file %s: %w", r.uri(), err)
	}
	return r, nil
}

// putOptions store a file of size bytes whose SHA-256 is sum: the store
// checks the content against sum, and the metadata keeps both for
// checkContent.
func putOptions(size int64, sum, mediaType string) objectstore.PutOptions {
	return objectstore.PutOptions{ContentType: cmp.Or(mediaType, "application/octet-stream"), SHA256: sum,
		Metadata: map[string]string{metaSize: strconv.FormatInt(size, 10), metaSHA256: sum}}
}

// Discard deletes the objects a call stored, once what was to hold them
// turned out not to be stored. A failure is logged: lifecycle rules remove
// what is left.
func (f *Files) Discard(ctx context.Context, kept []string) {
	ctx = context.WithoutCancel(ctx)
	for _, key := range kept {
		if err := f.store.Delete(ctx, key); err != nil {
			f.log.WarnContext(ctx, "could not delete a file nothing names", "key", key, "error", err)
		}
	}
}

// CreateUpload implements files/createUpload for owner: a presigned PUT
// URL, bound to the file's size, SHA-256 and media type, and the URI of the
// file it makes.
func (f *Files) CreateUpload(ctx context.Context, owner string, p a2a.FileUploadParams) (*a2a.FileUploadResult, error) {
	if f.store == nil {
		return nil, a2a.Errorf(a2a.CodeUnsupportedOperation, "this server keeps no files (no file store is configured): send files inline, within the request body limit")
	}
	if err := p.Validate(f.maxUpload); err != nil {
		return nil, err
	}
	p.SHA256 = strings.ToLower(p.SHA256)
	r := newRef(owner)
	u, h, err := f.store.PresignPut(ctx, r.key(), p.Size, putOptions(p.Size, p.SHA256, p.MediaType), f.ttl)
	if err != nil {
		return nil, fmt.Errorf("presign the upload of %s: %w", r.uri(), err)
	}
	res := &a2a.FileUploadResult{URI: r.uri(), UploadURL: u, Method: http.MethodPut, ExpiresAt: a2a.FormatTime(f.clock.Now().Add(f.ttl))}
	if len(h) > 0 {
		res.Headers = make(map[string]string, len(h))
		for k, v := range h {
			res.Headers[k] = strings.Join(v, ",")
		}
	}
	return res, nil
}

// PresignTask returns t with each file the host keeps named by a URL that
// fetches it (presigned for URLTTL) rather than its a2a-file: URI: in its
// history, status message and artifacts. t itself is left as it is; what
// changes is copied.
func (f *Files) PresignTask(ctx context.Context, t *a2a.Task) *a2a.Task {
	if f.store == nil {
		return t
	}
	history := f.presignMessages(ctx, t.History)
	status := f.PresignMessage(ctx, t.Status.Message)
	var artifacts []a2a.Artifact
	for i := range t.Artifacts {
		if parts := f.presignParts(ctx, t.Artifacts[i].Parts); parts != nil {
			if artifacts == nil {
				artifacts = slices.Clone(t.Artifacts)
			}
			artifacts[i].Parts = parts
		}
	}
	if artifacts == nil && status == t.Status.Message && (len(history) == 0 || &history[0] == &t.History[0]) {
		return t // nothing names a kept file: no copy (most reads)
	}
	c := *t
	c.History, c.Status.Message = history, status
	if artifacts != nil {
		c.Artifacts = artifacts
	}
	return &c
}

func (f *Files) presignMessages(ctx context.Context, msgs []a2a.Message) []a2a.Message {
	out := msgs
	cloned := false
	for i := range msgs {
		if parts := f.presignParts(ctx, msgs[i].Parts); parts != nil {
			if !cloned {
				out, cloned = slices.Clone(msgs), true
			}
			out[i].Parts = parts
		}
	}
	return out
}

// PresignMessage is m (nil for nil) as PresignTask shows its parts.
func (f *Files) PresignMessage(ctx context.Context, m *a2a.Message) *a2a.Message {
	if m == nil || f.store == nil {
		return m
	}
	parts := f.presignParts(ctx, m.Parts)
	if parts == nil {
		return m
	}
	c := *m
	c.Parts = parts
	return &c
}

// presignParts returns parts with presigned URLs, or nil when none names a
// file the host keeps.
func (f *Files) presignParts(ctx context.Context, parts []a2a.Part) []a2a.Part {
	var out []a2a.Part
	for i := range parts {
		r, ok, err := partRef(&parts[i])
		if !ok || err != nil {
			continue
		}
		u, err := f.store.PresignGet(ctx, r.key(), f.ttl)
		if err != nil {
			f.log.WarnContext(ctx, "could not presign a file", "uri", r.uri(), "error", err)
			continue
		}
		if out == nil {
			out = slices.Clone(parts)
		}
		fc := *out[i].File
		fc.URI = u
		out[i].File = &fc
	}
	return out
}
