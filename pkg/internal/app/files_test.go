package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/s3store"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/dynamocost"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
)

// randomBytes is n bytes that do not compress.
func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return b
}

// post sends a JSON body to url with the headers given in pairs and
// decodes the JSON answer.
func post(t *testing.T, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	require.NoError(t, json.Unmarshal(b, &m), "%d %s", resp.StatusCode, b)
	return resp.StatusCode, m
}

// field walks m by keys and array indexes.
func field(t *testing.T, m any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			o, ok := m.(map[string]any)
			require.True(t, ok, "%v is not an object (at %q)", m, k)
			m = o[k]
		case int:
			a, ok := m.([]any)
			require.True(t, ok && k < len(a), "%v has no element %d", m, k)
			m = a[k]
		}
	}
	return m
}

// str is the string at path.
func str(t *testing.T, m any, path ...any) string {
	t.Helper()
	s, ok := field(t, m, path...).(string)
	require.True(t, ok, "%v at %v is not a string", m, path)
	return s
}

// fetched GETs u and returns the SHA-256 of what it answered 200 with.
func fetched(t *testing.T, u string) [32]byte {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	return sha256.Sum256(b)
}

// withoutQuery is u without its query: the signature and expiry.
func withoutQuery(u string) string { s, _, _ := strings.Cut(u, "?"); return s }

// sendFileRequests are a blocking send of one file part of content (and a
// text part), in each binding, and where its answer keeps the task.
func sendFileRequests(content []byte, id string) []struct {
	name, url, body string
	header          []string
	task            []any
	uri             string
} {
	b64 := base64.StdEncoding.EncodeToString(content)
	return []struct {
		name, url, body string
		header          []string
		task            []any
		uri             string
	}{
		{"jsonrpc 0.3", "/", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"` + id + `-03","parts":[{"kind":"text","text":"keep it"},` +
			`{"kind":"file","file":{"bytes":"` + b64 + `","name":"report.bin","mimeType":"application/octet-stream"}}]},"configuration":{"blocking":true}}}`,
			nil, []any{"result"}, "uri"},
		{"jsonrpc 1.0", "/", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"` + id + `-10","parts":[{"text":"keep it"},` +
			`{"raw":"` + b64 + `","filename":"report.bin","mediaType":"application/octet-stream"}]}}}`,
			[]string{"A2A-Version", "1.0"}, []any{"result", "task"}, "url"},
		{"rest 0.3", "/rest/v1/message:send", `{"message":{"role":"user","messageId":"` + id + `-rest","parts":[{"kind":"text","text":"keep it"},` +
			`{"kind":"file","file":{"bytes":"` + b64 + `","name":"report.bin","mimeType":"application/octet-stream"}}]},"configuration":{"blocking":true}}`,
			nil, nil, "uri"},
	}
}

// filePart is the file of a part as the binding shows it: its URI, and
// that it holds no bytes.
func filePart(t *testing.T, part any, uriField string) string {
	t.Helper()
	p := part.(map[string]any)
	if f, ok := p["file"].(map[string]any); ok {
		p = f
	}
	assert.NotContains(t, p, "bytes")
	assert.NotContains(t, p, "raw")
	return str(t, p, uriField)
}

// artifactPart is the first part of the task's artifact named name.
func artifactPart(t *testing.T, task any, name string) any {
	t.Helper()
	for _, a := range field(t, task, "artifacts").([]any) {
		if a.(map[string]any)["name"] == name {
			return field(t, a, "parts", 0)
		}
	}
	t.Fatalf("no artifact %s in %v", name, task)
	return nil
}

// The local server on the memory store, in every binding: a blocking send
// with a 2 MB file part completes; the demo agent's artifact names it by a
// URL whose content has the same SHA-256 (0.3 FileWithBytes comes back as
// FileWithUri, 1.0 raw as url, name and media type kept); tasks/get shows
// the same URL form; after its lifetime the URL answers 403 saying it
// expired.
func TestLargeFileOnTheLocalServer(t *testing.T) {
	clk := clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := clienttest.Start(t, clienttest.Options{Clock: clk})
	content := randomBytes(2_000_000, 1)
	want := sha256.Sum256(content)
	var urls []string
	for _, rq := range sendFileRequests(content, "big") {
		t.Run(rq.name, func(t *testing.T) {
			code, m := post(t, srv.URL+rq.url, rq.body, rq.header...)
			require.Equal(t, http.StatusOK, code, "%v", m)
			task := field(t, m, rq.task...)
			require.Contains(t, []any{"completed", "TASK_STATE_COMPLETED"}, field(t, task, "status", "state"), "%v", task)
			art := artifactPart(t, task, "files")
			u := filePart(t, art, rq.uri)
			require.True(t, strings.HasPrefix(u, srv.URL+"/files/"), u)
			assert.Equal(t, want, fetched(t, u), "the same bytes")
			name, media := "name", "mimeType"
			if rq.uri == "url" {
				name, media = "filename", "mediaType"
			}
			p := art.(map[string]any)
			if f, ok := p["file"]; ok {
				p = f.(map[string]any)
			}
			assert.Equal(t, "report.bin", p[name])
			assert.Equal(t, "application/octet-stream", p[media])
			sent := filePart(t, field(t, task, "history", 0, "parts", 1), rq.uri)
			assert.Equal(t, withoutQuery(u), withoutQuery(sent), "the message's part and the echo name the same file")

			id := str(t, task, "id")
			code, got := post(t, srv.URL+"/", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"`+id+`"}}`)
			require.Equal(t, http.StatusOK, code)
			again := filePart(t, artifactPart(t, field(t, got, "result"), "files"), "uri")
			assert.Equal(t, withoutQuery(u), withoutQuery(again), "tasks/get shows the same URL form")
			urls = append(urls, again)
		})
	}
	clk.Advance(16 * time.Minute)
	for _, u := range urls {
		resp, err := http.Get(u)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
		assert.Contains(t, string(body), "the URL expired at 2030-01-02T03:19:05Z")
	}
}

// uploadFile asks srv for an upload URL of content (JSON-RPC) and PUTs it.
func uploadFile(t *testing.T, url string, content []byte, name string) string {
	t.Helper()
	sum := sha256.Sum256(content)
	code, m := post(t, url+"/", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"files/createUpload","params":{"name":%q,"mediaType":"application/octet-stream","size":%d,"sha256":"%x"}}`,
		name, len(content), sum))
	require.Equal(t, http.StatusOK, code)
	res := field(t, m, "result").(map[string]any)
	require.Equal(t, "PUT", res["method"])
	req, err := http.NewRequest(http.MethodPut, str(t, res, "uploadUrl"), bytes.NewReader(content))
	require.NoError(t, err)
	for k, v := range field(t, res, "headers").(map[string]any) {
		req.Header.Set(k, v.(string))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	return str(t, res, "uri")
}

// The local server on DynamoDB and S3 (moto), as A2A_TASK_STORE_BACKEND=
// dynamodb make run serves: a 2 MB file part sent inline is kept in the
// bucket, and a 20 MB file uploaded through files/createUpload then sent
// by URI; both come back by URL with the same SHA-256, and no item of the
// table is above 64 KB. (moto checks no presigned URL's expiry: S3 answers
// 403 "Request has expired"; the folder's expiry is
// TestLargeFileOnTheLocalServer's.)
func TestLargeFilesOnDynamoDBAndS3(t *testing.T) {
	ddb, table := newTable(t, "files")
	store, err := dynamo.New(ddb, dynamo.Options{Table: table})
	require.NoError(t, err)
	bucket := strings.Trim(strings.ToLower(strings.NewReplacer("_", "-", "/", "-", ".", "-").Replace(table)), "-")
	if len(bucket) > 63 {
		bucket = strings.Trim(bucket[len(bucket)-63:], "-")
	}
	objects, err := s3store.New(awstest.Config(t), bucket, s3store.Options{})
	require.NoError(t, err)
	require.NoError(t, objects.CreateBucket(context.Background()))
	srv := clienttest.Start(t, clienttest.Options{Store: store, Files: objects})

	inline := randomBytes(2_000_000, 2)
	rq := sendFileRequests(inline, "ddb")[0]
	code, m := post(t, srv.URL+rq.url, rq.body)
	require.Equal(t, http.StatusOK, code, "%v", m)
	task := field(t, m, "result")
	require.Equal(t, "completed", field(t, task, "status", "state"), "%v", task)
	u := filePart(t, artifactPart(t, task, "files"), "uri")
	assert.Contains(t, u, "/"+bucket+"/files/", "a presigned URL of the bucket")
	assert.Equal(t, sha256.Sum256(inline), fetched(t, u))

	large := randomBytes(20_000_000, 3)
	uri := uploadFile(t, srv.URL, large, "big.bin")
	require.True(t, strings.HasPrefix(uri, "a2a-file:"), uri)
	code, m = post(t, srv.URL+"/", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"ddb-upload","parts":[`+
		`{"kind":"file","file":{"uri":"`+uri+`","name":"big.bin","mimeType":"application/octet-stream"}}]},"configuration":{"blocking":true}}}`)
	require.Equal(t, http.StatusOK, code)
	task = field(t, m, "result")
	require.Equal(t, "completed", field(t, task, "status", "state"), "%v", task)
	assert.Equal(t, sha256.Sum256(large), fetched(t, filePart(t, artifactPart(t, task, "files"), "uri")))

	out, err := ddb.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table)})
	require.NoError(t, err)
	require.NotEmpty(t, out.Items)
	for _, item := range out.Items {
		assert.LessOrEqual(t, dynamocost.Size(item), 64<<10, "item %v", item["PK"])
	}
}

// Push notifications carry the files' URLs, never their bytes.
func TestPushNotificationsCarryFileURLs(t *testing.T) {
	ks, err := keys.Generate(keys.AlgES256)
	require.NoError(t, err)
	srv := clienttest.Start(t, clienttest.Options{Env: map[string]string{"A2A_PUSH_ALLOW_INSECURE": "true", "A2A_PUSH_ISSUER": "https://agent.test"}, Push: app.PushOptions{Keys: ks}})
	rcv := pushtest.NewReceiver(t, ks, "https://agent.test")
	hook := rcv.Hook("/files", pushtest.Behaviour{})
	content := randomBytes(100_000, 4)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"push-file","parts":[{"kind":"file","file":{"bytes":"` +
		base64.StdEncoding.EncodeToString(content) + `","name":"chart.png","mimeType":"image/png"}}]},"configuration":{"blocking":true,"pushNotificationConfig":{"url":"` + hook + `"}}}}`
	code, m := post(t, srv.URL+"/", body)
	require.Equal(t, http.StatusOK, code, "%v", m)
	var done *a2a.Task
	require.Eventually(t, func() bool {
		for _, d := range rcv.DeliveredTasks("/files") {
			if d.Task.Status.State == a2a.TaskStateCompleted {
				done = &d.Task
			}
		}
		return done != nil
	}, 10*time.Second, 10*time.Millisecond)
	require.Len(t, done.Artifacts, 1)
	f := done.Artifacts[0].Parts[0].File
	require.NotNil(t, f)
	assert.Empty(t, f.Bytes)
	assert.Equal(t, "chart.png", f.Name)
	assert.Equal(t, sha256.Sum256(content), fetched(t, f.URI))
	for _, n := range rcv.Delivered("/files") {
		assert.Less(t, len(n.Body), 10_000, "a notification of %d bytes", len(n.Body))
	}
}

// binding is how a request of one binding is made and its error read.
type binding struct {
	name string
	// send is the URL path and body of a message/send of parts (JSON).
	send func(parts string) (string, string)
	// upload is the URL path and body of files/createUpload of params.
	upload func(params string) (string, string)
	header []string
}

var bindings = []binding{
	{"jsonrpc 0.3", func(parts string) (string, string) {
		return "/", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"lim-03","parts":` + parts + `},"configuration":{"blocking":true}}}`
	}, func(params string) (string, string) {
		return "/", `{"jsonrpc":"2.0","id":1,"method":"files/createUpload","params":` + params + `}`
	}, nil},
	{"jsonrpc 1.0", func(parts string) (string, string) {
		return "/", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"lim-10","parts":` + strings.ReplaceAll(parts, `"kind":"text",`, "") + `}}}`
	}, func(params string) (string, string) {
		return "/", `{"jsonrpc":"2.0","id":1,"method":"files/createUpload","params":` + params + `}`
	}, []string{"A2A-Version", "1.0"}},
	{"rest 0.3", func(parts string) (string, string) {
		return "/rest/v1/message:send", `{"message":{"role":"user","messageId":"lim-rest","parts":` + parts + `},"configuration":{"blocking":true}}`
	}, func(params string) (string, string) { return "/rest/v1/files", params }, nil},
	{"rest 1.0", func(parts string) (string, string) {
		return "/rest/message:send", `{"message":{"role":"ROLE_USER","messageId":"lim-rest10","parts":` + strings.ReplaceAll(parts, `"kind":"text",`, "") + `}}`
	}, func(params string) (string, string) { return "/rest/files", params }, []string{"A2A-Version", "1.0"}},
}

// refusal asserts an answer is the binding's invalid-params error (-32602,
// REST 400) or, for status, that HTTP status, with a message that says all
// of says.
func refusal(t *testing.T, b binding, status int, m map[string]any, code float64, says ...string) {
	t.Helper()
	var msg string
	if strings.HasPrefix(b.name, "jsonrpc") && status == http.StatusOK {
		assert.Equal(t, code, field(t, m, "error", "code"), "%v", m)
		msg = str(t, m, "error", "message")
	} else {
		msg = str(t, m, "error", "message")
	}
	for _, s := range says {
		assert.Contains(t, msg, s)
	}
	assert.NotContains(t, msg, "not found", "never task-not-found")
}

// Every limit, in every binding, answers a typed error that names it: the
// request body (413), the parts of a message and the size of an upload
// (-32602, REST 400); on a server that keeps no files (a Lambda function
// without A2A_FILES_BUCKET), a blocking send too large for a task item is
// -32602 naming the item limit, never -32001, and the upload method says
// files are not kept (-32004).
func TestLimitsOnEveryBinding(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{Env: map[string]string{"A2A_MAX_REQUEST_BODY_BYTES": "65536", "A2A_MAX_PARTS": "3", "A2A_FILES_MAX_UPLOAD_BYTES": "1000000"}})
	text := `{"kind":"text","text":"x"}`
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			path, body := b.send(`[{"kind":"text","text":"` + strings.Repeat("x", 70_000) + `"}]`)
			code, m := post(t, srv.URL+path, body, b.header...)
			assert.Equal(t, http.StatusRequestEntityTooLarge, code)
			refusal(t, b, code, m, 0, "exceeds the limit of 65536 bytes (A2A_MAX_REQUEST_BODY_BYTES)", "files/createUpload")

			path, body = b.send("[" + strings.Repeat(text+",", 3) + text + "]")
			code, m = post(t, srv.URL+path, body, b.header...)
			if !strings.HasPrefix(b.name, "jsonrpc") {
				assert.Equal(t, http.StatusBadRequest, code)
			}
			refusal(t, b, code, m, -32602, "holds 4 parts; a message holds at most 3 (A2A_MAX_PARTS)")

			path, body = b.upload(`{"size":1000001,"sha256":"` + strings.Repeat("ab", 32) + `"}`)
			code, m = post(t, srv.URL+path, body, b.header...)
			if !strings.HasPrefix(b.name, "jsonrpc") {
				assert.Equal(t, http.StatusBadRequest, code)
			}
			refusal(t, b, code, m, -32602, "1000001 bytes exceeds the upload limit of 1000000 bytes (A2A_FILES_MAX_UPLOAD_BYTES)")
		})
	}

	const token = "limits-token-0123456789"
	env := map[string]string{"A2A_BEARER_TOKEN": token, "A2A_AGENT": "demo", "A2A_DEMO_WORK_MS": "0", "A2A_EXECUTION": "inline"}
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	ag, err := builtin.Registry().New("demo", getenv(env))
	require.NoError(t, err)
	ts := memory.New(memory.Options{})
	h, err := httpfn.NewHandler(cfg, ag, memoryBacklog{ts}, httpfn.Options{})
	require.NoError(t, err)
	fn := httptest.NewServer(h)
	t.Cleanup(fn.Close)
	for _, b := range bindings {
		t.Run(b.name+" without files", func(t *testing.T) {
			path, body := b.send(`[{"kind":"text","text":"` + strings.Repeat("y", 500_000) + `"}]`)
			code, m := post(t, fn.URL+path, body, append([]string{"Authorization", "Bearer " + token}, b.header...)...)
			refusal(t, b, code, m, -32602, "exceeds the storage limit of 389120 bytes")
			path, body = b.upload(`{"size":10,"sha256":"` + strings.Repeat("ab", 32) + `"}`)
			code, m = post(t, fn.URL+path, body, append([]string{"Authorization", "Bearer " + token}, b.header...)...)
			refusal(t, b, code, m, -32004, "keeps no files")
		})
	}
	page, err := ts.ListTasks(context.Background(), store.ListQuery{Owner: config.DefaultTokenName, PageSize: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks, "nothing was stored")
}
