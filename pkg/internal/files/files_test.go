package files_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/folder"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
)

// env is Files on a folder whose URLs a test server serves.
type env struct {
	files *files.Files
	store *folder.Store
	clock *clocktest.Clock
}

func newEnv(t *testing.T, o files.Options) *env {
	e := &env{clock: clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { e.store.Handler().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	var err error
	e.store, err = folder.New(t.TempDir(), srv.URL, folder.Options{Clock: e.clock})
	require.NoError(t, err)
	if o.Store == nil {
		o.Store = e.store
	}
	o.Clock = e.clock
	e.files = files.New(o)
	return e
}

// folderAt is a folder store of dir whose URLs no server serves.
func folderAt(dir string) (*folder.Store, error) {
	return folder.New(dir, "http://127.0.0.1:1", folder.Options{})
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func get(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

func invalidParams(t *testing.T, err error, field string, says ...string) {
	t.Helper()
	var ae *a2a.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, a2a.CodeInvalidParams, ae.Code, "%v", err)
	assert.Contains(t, ae.Message, field)
	for _, s := range says {
		assert.Contains(t, ae.Message, s)
	}
}

// Parts above the inline limit are stored: text as text/plain, data as
// application/json, a file's bytes with its name and media type; the part
// keeps its metadata. Smaller parts, and file URIs, stay as they are.
func TestAcceptStoresLargeParts(t *testing.T) {
	e := newEnv(t, files.Options{InlineLimit: 1024})
	ctx := context.Background()
	pdf := bytes.Repeat([]byte("%PDF"), 1000)
	bigText := strings.Repeat("words ", 400)
	bigData := []byte(`{"rows":[` + strings.Repeat(`[1,2,3],`, 200) + `[4]]}`)
	in := []a2a.Part{
		a2a.TextPart("summarise this"),
		{Kind: a2a.PartKindText, Text: bigText, Metadata: a2a.Metadata{"lang": "en"}},
		{Kind: a2a.PartKindData, Data: bigData},
		a2a.FileBytesPart(base64.StdEncoding.EncodeToString(pdf), "report.pdf", "application/pdf"),
		a2a.FileBytesPart(base64.StdEncoding.EncodeToString([]byte("tiny")), "tiny.txt", "text/plain"),
		a2a.FileURIPart("https://example.com/a.png", "a.png", "image/png"),
	}
	orig := append([]a2a.Part(nil), in...)
	out, kept, err := e.files.Accept(ctx, "alice", "params.message.parts", in)
	require.NoError(t, err)
	assert.Equal(t, orig, in, "the parts given are left as they are")
	require.Len(t, out, len(in))
	assert.Len(t, kept, 3)
	assert.Equal(t, in[0], out[0])
	assert.Equal(t, in[4], out[4])
	assert.Equal(t, in[5], out[5])

	for i, want := range []struct {
		content         []byte
		name, mediaType string
	}{1: {[]byte(bigText), "", "text/plain"}, 2: {bigData, "", "application/json"}, 3: {pdf, "report.pdf", "application/pdf"}} {
		if want.content == nil {
			continue
		}
		p := out[i]
		require.Equal(t, a2a.PartKindFile, p.Kind, "part %d", i)
		assert.True(t, strings.HasPrefix(p.File.URI, "a2a-file:"), p.File.URI)
		assert.Empty(t, p.File.Bytes)
		assert.Equal(t, want.name, p.File.Name)
		assert.Equal(t, want.mediaType, p.File.MimeType)
		assert.Equal(t, in[i].Metadata, p.Metadata)
		// The agent reads it back whatever keeps it.
		rc, err := e.files.ForOwner("alice").Open(ctx, p)
		require.NoError(t, err)
		got, _ := io.ReadAll(rc)
		rc.Close()
		assert.Equal(t, want.content, got, "part %d", i)
	}

	// Read: a presigned URL that fetches the content.
	task := &a2a.Task{ID: "t", History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m", Parts: out}}}
	shown := e.files.PresignTask(ctx, task)
	assert.Equal(t, out[3].File.URI, task.History[0].Parts[3].File.URI, "the task given is left as it is")
	u := shown.History[0].Parts[3].File.URI
	require.True(t, strings.HasPrefix(u, "http://"), u)
	assert.Equal(t, "report.pdf", shown.History[0].Parts[3].File.Name)
	code, body := get(t, u)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, pdf, body)

	// A kept file in an artifact only: the artifacts are copied, the rest
	// shared; a task that names no kept file is shown as it is.
	plain := []a2a.Message{{Role: a2a.RoleUser, MessageID: "m", Parts: []a2a.Part{a2a.TextPart("hi")}}}
	task = &a2a.Task{ID: "t2", History: plain, Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: out}}}
	shown = e.files.PresignTask(ctx, task)
	assert.True(t, strings.HasPrefix(shown.Artifacts[0].Parts[3].File.URI, "http://"), shown.Artifacts[0].Parts[3].File.URI)
	assert.Equal(t, out[3].File.URI, task.Artifacts[0].Parts[3].File.URI, "the task given is left as it is")
	assert.Same(t, &plain[0], &shown.History[0], "the history, naming no kept file, is not copied")
	task = &a2a.Task{ID: "t3", History: plain, Status: a2a.TaskStatus{Message: &plain[0]}, Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: plain[0].Parts}}}
	assert.Same(t, task, e.files.PresignTask(ctx, task), "a task that names no kept file is not copied")

	// Discarded: the objects are gone.
	e.files.Discard(ctx, kept)
	_, err = e.files.ForOwner("alice").Open(ctx, out[3])
	assert.ErrorIs(t, err, objectstore.ErrNotFound)
}

// Inline parts that are each small but together too large for an item are
// stored too, the largest first, until the rest fits.
func TestAcceptStoresTheLargestUntilTheMessageFits(t *testing.T) {
	e := newEnv(t, files.Options{InlineLimit: 32 << 10, MaxInline: 100 << 10})
	var in []a2a.Part
	for i := range 8 {
		in = append(in, a2a.TextPart(strings.Repeat("x", 20<<10+i)))
	}
	out, kept, err := e.files.Accept(context.Background(), "alice", "params.message.parts", in)
	require.NoError(t, err)
	assert.Len(t, kept, 4, "four of the eight 20 KB parts are stored")
	total := 0
	for i, p := range out {
		total += p.ApproxSize()
		if p.Kind == a2a.PartKindFile {
			assert.GreaterOrEqual(t, i, 4, "the largest (the last ones) go first")
		}
	}
	assert.LessOrEqual(t, total, 100<<10)
}

// Without a store nothing is stored: large parts stay inline, and a part
// naming a kept file is refused.
func TestWithoutAStore(t *testing.T) {
	f := files.New(files.Options{})
	big := []a2a.Part{a2a.TextPart(strings.Repeat("x", 100<<10))}
	out, kept, err := f.Accept(context.Background(), "alice", "params.message.parts", big)
	require.NoError(t, err)
	assert.Equal(t, big, out)
	assert.Empty(t, kept)
	_, _, err = f.Accept(context.Background(), "alice", "params.message.parts",
		[]a2a.Part{a2a.FileURIPart("a2a-file:0123456789abcdef0123456789abcdef/0123456789abcdef0123456789abcdef", "", "")})
	invalidParams(t, err, "params.message.parts[0].file.uri", "keeps none")
	_, err = f.CreateUpload(context.Background(), "alice", a2a.FileUploadParams{Size: 1, SHA256: hash(nil)})
	var ae *a2a.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, a2a.CodeUnsupportedOperation, ae.Code)
}

// upload creates an upload of content for owner and PUTs it.
func upload(t *testing.T, e *env, owner string, content []byte) *a2a.FileUploadResult {
	t.Helper()
	res, err := e.files.CreateUpload(context.Background(), owner, a2a.FileUploadParams{Name: "data.bin", MediaType: "application/octet-stream", Size: int64(len(content)), SHA256: hash(content)})
	require.NoError(t, err)
	assert.Equal(t, http.MethodPut, res.Method)
	assert.Equal(t, "2030-01-02T03:19:05.000Z", res.ExpiresAt, "the URL's lifetime")
	req, err := http.NewRequest(res.Method, res.UploadURL, bytes.NewReader(content))
	require.NoError(t, err)
	for k, v := range res.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return res
}

// An uploaded file is accepted by URI, by its owner only; a URI whose
// upload never happened, a malformed one and another caller's are refused
// with -32602 naming the part.
func TestAcceptChecksUploads(t *testing.T) {
	e := newEnv(t, files.Options{})
	ctx := context.Background()
	content := bytes.Repeat([]byte{1, 2, 3}, 10000)
	res := upload(t, e, "alice", content)
	part := a2a.FileURIPart(res.URI, "data.bin", "application/octet-stream")
	out, kept, err := e.files.Accept(ctx, "alice", "params.message.parts", []a2a.Part{a2a.TextPart("hi"), part})
	require.NoError(t, err)
	assert.Empty(t, kept, "an uploaded file is kept already")
	assert.Equal(t, part, out[1])

	_, _, err = e.files.Accept(ctx, "bob", "params.message.parts", []a2a.Part{part})
	invalidParams(t, err, "params.message.parts[0].file.uri", "is not one of your files")

	pending, err := e.files.CreateUpload(ctx, "alice", a2a.FileUploadParams{Size: 3, SHA256: hash([]byte("abc"))})
	require.NoError(t, err)
	_, _, err = e.files.Accept(ctx, "alice", "params.message.parts", []a2a.Part{a2a.FileURIPart(pending.URI, "", "")})
	invalidParams(t, err, "params.message.parts[0].file.uri", "holds no file", "files/createUpload")

	_, _, err = e.files.Accept(ctx, "alice", "params.message.parts", []a2a.Part{a2a.FileURIPart("a2a-file:nope", "", "")})
	invalidParams(t, err, "params.message.parts[0].file.uri", "is not a file URI this server made")
}

// unverified is a store that does not check the content of uploads nor
// report their SHA-256, as moto's S3 does: the check reads the content.
type unverified struct{ objectstore.Store }

func (u unverified) Head(ctx context.Context, key string) (objectstore.Info, error) {
	in, err := u.Store.Head(ctx, key)
	in.SHA256 = ""
	return in, err
}

// A file whose content does not match the size or SHA-256 its upload
// declared is refused, even from a store that did not check it.
func TestAcceptChecksTheContent(t *testing.T) {
	e := newEnv(t, files.Options{})
	e.files = files.New(files.Options{Store: unverified{e.store}, Clock: e.clock})
	ctx := context.Background()
	good := bytes.Repeat([]byte("a"), 1000)
	res := upload(t, e, "alice", good)
	_, _, err := e.files.Accept(ctx, "alice", "params.message.parts", []a2a.Part{a2a.FileURIPart(res.URI, "", "")})
	require.NoError(t, err, "read and hashed: it matches")

	key := "files/" + strings.TrimPrefix(res.URI, "a2a-file:")
	bad := bytes.Repeat([]byte("b"), 1000)
	require.NoError(t, e.store.Put(ctx, key, bytes.NewReader(bad), 1000, objectstore.PutOptions{Metadata: map[string]string{"size": "1000", "sha256": hash(good)}}))
	_, _, err = e.files.Accept(ctx, "alice", "params.message.parts", []a2a.Part{a2a.FileURIPart(res.URI, "", "")})
	invalidParams(t, err, "params.message.parts[0].file.uri", "does not match the SHA-256")

	require.NoError(t, e.store.Put(ctx, key, bytes.NewReader(bad[:10]), 10, objectstore.PutOptions{Metadata: map[string]string{"size": "1000", "sha256": hash(good)}}))
	_, _, err = e.files.Accept(ctx, "alice", "params.message.parts", []a2a.Part{a2a.FileURIPart(res.URI, "", "")})
	invalidParams(t, err, "params.message.parts[0].file.uri", "holds 10 bytes, not the 1000")
}

// The upload's params are checked: each bad one is -32602 naming it, and
// the size limit names its setting.
func TestCreateUploadValidates(t *testing.T) {
	e := newEnv(t, files.Options{MaxUploadBytes: 1000})
	for _, c := range []struct {
		p      a2a.FileUploadParams
		field  string
		saying string
	}{
		{a2a.FileUploadParams{Size: 0, SHA256: hash(nil)}, "params.size", "above 0"},
		{a2a.FileUploadParams{Size: 1001, SHA256: hash(nil)}, "params.size", "exceeds the upload limit of 1000 bytes (A2A_FILES_MAX_UPLOAD_BYTES)"},
		{a2a.FileUploadParams{Size: 10, SHA256: "abc"}, "params.sha256", "64 hex digits"},
		{a2a.FileUploadParams{Size: 10, SHA256: hash(nil), MediaType: "pdf"}, "params.mediaType", "media type"},
		{a2a.FileUploadParams{Size: 10, SHA256: hash(nil), Name: "a\nb"}, "params.name", "control characters"},
	} {
		_, err := e.files.CreateUpload(context.Background(), "alice", c.p)
		invalidParams(t, err, c.field, c.saying)
	}
}

// An agent's parts may name its task owner's files only.
func TestOffloadRefusesAnotherCallersFile(t *testing.T) {
	e := newEnv(t, files.Options{})
	res := upload(t, e, "alice", []byte("secret"))
	_, _, err := e.files.Offload(context.Background(), "bob", []a2a.Part{a2a.FileURIPart(res.URI, "", "")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another caller")
	_, _, err = e.files.Offload(context.Background(), "alice", []a2a.Part{a2a.FileURIPart(res.URI, "", "")})
	assert.NoError(t, err)
}

// The agent's files: inline bytes, kept files (its owner's), and https
// files under the egress rules; Store keeps small content inline and
// large content as a file; both bounded by the upload limit.
func TestAgentFiles(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(bytes.Repeat([]byte("z"), 5000))
			return
		}
		io.WriteString(w, "remote content")
	}))
	defer hs.Close()
	e := newEnv(t, files.Options{InlineLimit: 1024, MaxUploadBytes: 4096, Egress: egress.Policy{AllowInsecure: true}})
	ctx := context.Background()
	af := e.files.ForOwner("alice")
	in := agent.StepInput{Files: af}

	b, err := in.ReadFile(ctx, agent.File([]byte("inline"), "a.txt", "text/plain"))
	require.NoError(t, err)
	assert.Equal(t, "inline", string(b))

	b, err = in.ReadFile(ctx, a2a.FileURIPart(hs.URL+"/doc", "", ""))
	require.NoError(t, err)
	assert.Equal(t, "remote content", string(b))
	_, err = in.ReadFile(ctx, a2a.FileURIPart(hs.URL+"/big", "", ""))
	assert.ErrorContains(t, err, "limit of 4096 bytes")

	strict := newEnv(t, files.Options{}).files.ForOwner("alice")
	for _, u := range []string{hs.URL + "/doc", "https://169.254.169.254/latest/meta-data", "https://10.0.0.1/x", "ftp://example.com/x"} {
		_, err := strict.Open(ctx, a2a.FileURIPart(u, "", ""))
		assert.ErrorIs(t, err, egress.ErrRefused, "%s is refused by the egress rules", u)
	}

	small, err := af.Store(ctx, strings.NewReader("small"), "s.txt", "text/plain")
	require.NoError(t, err)
	assert.Equal(t, agent.File([]byte("small"), "s.txt", "text/plain"), small, "small content stays inline")
	large, err := af.Store(ctx, bytes.NewReader(bytes.Repeat([]byte("L"), 3000)), "l.bin", "application/octet-stream")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(large.File.URI, "a2a-file:"), large.File.URI)
	b, err = in.ReadFile(ctx, large)
	require.NoError(t, err)
	assert.Len(t, b, 3000)
	_, err = e.files.ForOwner("bob").Open(ctx, large)
	assert.ErrorContains(t, err, "not a file of the task's caller")
	_, err = af.Store(ctx, bytes.NewReader(make([]byte, 5000)), "", "")
	assert.ErrorContains(t, err, "limit of 4096 bytes")

	_, err = in.ReadFile(ctx, a2a.TextPart("x"))
	assert.True(t, errors.Is(err, agent.ErrNotAFile))
}

// After its lifetime a presigned URL answers 403 with a body that says it
// expired.
func TestPresignedURLsExpire(t *testing.T) {
	e := newEnv(t, files.Options{InlineLimit: 1024, URLTTL: time.Minute})
	out, _, err := e.files.Accept(context.Background(), "alice", "p", []a2a.Part{a2a.TextPart(strings.Repeat("t", 2000))})
	require.NoError(t, err)
	u := e.files.PresignMessage(context.Background(), &a2a.Message{Parts: out}).Parts[0].File.URI
	code, _ := get(t, u)
	assert.Equal(t, http.StatusOK, code)
	e.clock.Advance(61 * time.Second)
	code, body := get(t, u)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, string(body), "expired")
}
