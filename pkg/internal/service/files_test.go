package service_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/folder"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// filesFixture is a service whose blocking sends run inline (as the send
// function's), on a memory store (wrapped by wrap, when set), with files
// in a folder (none when dir is "").
type filesFixture struct {
	svc   *service.Service
	store *memory.Store
	agent *scripted
	dir   string
}

type backlog struct{ store.Store }

func (backlog) Defer(context.Context, engine.Job) error { return nil }

func newFilesFixture(t *testing.T, withFiles bool, wrap func(store.Store) store.Store, step func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error)) *filesFixture {
	t.Helper()
	clk := clocktest.New(clocktest.Start(t), clocktest.WithTick(time.Millisecond))
	f := &filesFixture{store: memory.New(memory.Options{Clock: clk}), agent: &scripted{info: agent.Info{Name: "files"}, step: step}}
	var ts store.Store = f.store
	if wrap != nil {
		ts = wrap(ts)
	}
	var fs interface {
		service.Files
		engine.Files
	}
	if withFiles {
		f.dir = t.TempDir()
		var objects *folder.Store
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { objects.Handler().ServeHTTP(w, r) }))
		t.Cleanup(srv.Close)
		var err error
		objects, err = folder.New(f.dir, srv.URL, folder.Options{Clock: clk})
		require.NoError(t, err)
		fs = files.New(files.Options{Store: objects, Clock: clk, MaxInline: store.MaxContentBytes - 8<<10})
	}
	exec := engine.NewExecutor(ts, f.agent, engine.Options{Clock: clk, Files: fs})
	runner := inline.New(exec, backlog{ts}, inline.Options{Clock: clk})
	f.svc = service.New(ts, runner, f.agent.info, service.Config{BlockingTimeout: 5 * time.Second}, service.Options{Clock: clk, Files: fs, Inline: runner})
	return f
}

// objects counts the files kept.
func (f *filesFixture) objects(t *testing.T) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(f.dir, "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".meta") {
			n++
		}
		return err
	})
	require.NoError(t, err)
	return n
}

// echoFiles completes with an artifact holding the message's file parts.
func echoFiles(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	var parts []a2a.Part
	for _, p := range in.Message.Parts {
		if p.Kind == a2a.PartKindFile {
			parts = append(parts, p)
		}
	}
	return agent.Complete(agent.Text("here they are"), a2a.Artifact{ArtifactID: "files", Parts: parts}), nil
}

func fetch(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// A blocking send with a 2 MB file part completes: the task item holds the
// file's URI, never its bytes, and every read shows a URL that fetches the
// same bytes (the message's part and the artifact that echoes it).
func TestBlockingSendKeepsALargeFileOutOfTheTask(t *testing.T) {
	f := newFilesFixture(t, true, nil, echoFiles)
	content := bytes.Repeat([]byte("0123456789"), 200_000)
	msg := a2a.Message{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{
		a2a.TextPart("keep this"), a2a.FileBytesPart(base64.StdEncoding.EncodeToString(content), "big.bin", "application/octet-stream")}}
	task := sent(t, f.svc, "alice", send(msg, true))
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Len(t, task.Artifacts, 1)
	art := task.Artifacts[0].Parts[0]
	require.NotNil(t, art.File)
	assert.Equal(t, "big.bin", art.File.Name)
	assert.Empty(t, art.File.Bytes)
	assert.Equal(t, content, fetch(t, art.File.URI))
	assert.Equal(t, content, fetch(t, task.History[0].Parts[1].File.URI))

	rec, err := f.store.GetTask(context.Background(), task.ID, store.AllHistory)
	require.NoError(t, err)
	assert.Less(t, rec.Task.History[0].ApproxSize(), 1024, "the stored message holds a URI")
	assert.True(t, strings.HasPrefix(rec.Task.Artifacts[0].Parts[0].File.URI, "a2a-file:"), "the store keeps the a2a-file: URI; reads presign it")
	assert.Equal(t, 1, f.objects(t), "one file: the artifact names the message's")

	got, err := f.svc.GetTask(context.Background(), "alice", a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, content, fetch(t, got.Artifacts[0].Parts[0].File.URI), "tasks/get shows the same URL form")
}

// Without a file store, a blocking send whose message is larger than a
// task item can hold is refused -32602 naming the limit before the agent
// runs: never -32001 (the task it never stored), and nothing is stored.
func TestTooLargeBlockingSendWithoutFiles(t *testing.T) {
	f := newFilesFixture(t, false, nil, completeWithEcho)
	_, err := f.svc.SendMessage(context.Background(), "alice", send(userMsg("m1", strings.Repeat("x", 500<<10)), true))
	requireCode(t, err, a2a.CodeInvalidParams, "exceeds the storage limit of 389120 bytes")
	assert.Zero(t, f.agent.calls.Load(), "the agent did not run")
	page, err := f.store.ListTasks(context.Background(), store.ListQuery{Owner: "alice", PageSize: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks)
}

// tooLargeCreate is a store that refuses every new task as too large, as
// DynamoDB refuses an item whose encoding is larger than estimated.
type tooLargeCreate struct{ store.Store }

func (tooLargeCreate) CreateTask(context.Context, store.NewTask) error {
	return &store.TooLargeError{What: "task (DynamoDB refused the item size)", Limit: 400 << 10}
}

// A store's refusal of the first step's write of a new task (which stores
// the task, engine.Unsaved) reaches the send as -32602 naming the limit, not
// as a task that is not found; the files of the message are discarded.
func TestTooLargeRefusalOfTheFirstStepReachesTheSend(t *testing.T) {
	f := newFilesFixture(t, true, func(s store.Store) store.Store { return tooLargeCreate{s} }, completeWithEcho)
	msg := userMsg("m1", "a large part follows")
	msg.Parts = append(msg.Parts, a2a.TextPart(strings.Repeat("y", 100<<10)))
	_, err := f.svc.SendMessage(context.Background(), "alice", send(msg, true))
	requireCode(t, err, a2a.CodeInvalidParams, "exceeds the storage limit of 409600 bytes")
	assert.Zero(t, f.objects(t), "no file is left for a task that was not stored")
}

// A message's parts are bounded: one part too many is -32602 naming the
// limit and its setting.
func TestPartCountLimit(t *testing.T) {
	f := newFilesFixture(t, true, nil, completeWithEcho)
	msg := userMsg("m1", "x")
	for len(msg.Parts) < config.DefaultMaxParts+1 {
		msg.Parts = append(msg.Parts, a2a.TextPart("x"))
	}
	_, err := f.svc.SendMessage(context.Background(), "alice", send(msg, true))
	requireCode(t, err, a2a.CodeInvalidParams, "holds 101 parts; a message holds at most 100 (A2A_MAX_PARTS)")
}

// What the agent makes is kept the same way: a large artifact given as
// bytes, emitted or returned, and a stream it stores; the store holds
// URIs only, and an artifact naming another caller's file fails the task.
func TestAgentOutputIsKeptOutOfTheTask(t *testing.T) {
	big := bytes.Repeat([]byte("chart"), 20_000)
	var foreign string
	f := newFilesFixture(t, true, nil, func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
		if in.Message.Text() == "steal" {
			return agent.Complete(nil, a2a.Artifact{ArtifactID: "x", Parts: []a2a.Part{a2a.FileURIPart(foreign, "", "")}}), nil
		}
		if err := emit.Artifact(ctx, a2a.Artifact{ArtifactID: "emitted", Parts: []a2a.Part{agent.File(big, "chart.png", "image/png")}}, agent.ArtifactOptions{LastChunk: true}); err != nil {
			return agent.Outcome{}, err
		}
		streamed, err := in.Files.Store(ctx, bytes.NewReader(big), "stream.bin", "application/octet-stream")
		if err != nil {
			return agent.Outcome{}, err
		}
		foreign = streamed.File.URI
		return agent.Complete(nil, a2a.Artifact{ArtifactID: "returned", Parts: []a2a.Part{agent.File(big, "b.png", "image/png"), streamed}}), nil
	})
	task := sent(t, f.svc, "alice", send(userMsg("m1", "make"), true))
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State, "%+v", task.Status.Message)
	rec, err := f.store.GetTask(context.Background(), task.ID, store.AllHistory)
	require.NoError(t, err)
	for _, a := range rec.Task.Artifacts {
		for _, p := range a.Parts {
			require.NotNil(t, p.File)
			assert.True(t, strings.HasPrefix(p.File.URI, "a2a-file:"), "artifact %s holds a URI", a.ArtifactID)
		}
	}
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			assert.Equal(t, big, fetch(t, p.File.URI))
		}
	}
	assert.Equal(t, 3, f.objects(t))

	stolen := sent(t, f.svc, "bob", send(userMsg("m2", "steal"), true))
	assert.Equal(t, a2a.TaskStateFailed, stolen.Status.State)
	assert.Contains(t, stolen.Status.Message.Text(), "names a file of another caller")
}
