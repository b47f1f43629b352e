package functions_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// bucketOf creates a bucket in moto for the test (S3's rules: lower case,
// at most 63 characters).
func bucketOf(t *testing.T) string {
	name := strings.Trim(strings.ToLower(strings.NewReplacer("_", "-", "/", "-", ".", "-").Replace(awstest.UniqueName(t, "files"))), "-")
	if len(name) > 63 {
		name = strings.Trim(name[len(name)-63:], "-")
	}
	client := s3.NewFromConfig(awstest.Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	_, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)})
	require.NoError(t, err)
	return name
}

// sendText invokes the send function with the sample event's blocking
// message/send, its text replaced by text, and returns the JSON-RPC answer.
func (d *deployed) sendText(t *testing.T, text string) (a2a.Task, *a2a.Error) {
	t.Helper()
	var ev events.APIGatewayV2HTTPRequest
	require.NoError(t, json.Unmarshal(d.event, &ev))
	body := `{"jsonrpc":"2.0","id":"req-big","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"big-text",` +
		`"parts":[{"kind":"text","text":"` + text + `"}]},"configuration":{"blocking":true}}}`
	ev.Body = body
	delete(ev.Headers, "content-length")
	event, err := json.Marshal(ev)
	require.NoError(t, err)
	return d.invokeSend(t, event)
}

// The send function's binary through the Runtime API emulator, in auto
// mode (a blocking send's first step runs in the request and stores the
// task with its first write): a blocking send with 500 KB of text is kept
// in the files bucket and completes, the demo agent's artifact naming the
// file by a presigned URL of the bucket; without a bucket it is refused
// -32602 naming the item limit, never -32001, and no task is stored.
func TestLargeBlockingSendOnTheSendFunction(t *testing.T) {
	text := strings.Repeat("All work and no play. ", 500_000/22)
	t.Run("with the files bucket", func(t *testing.T) {
		bucket := bucketOf(t)
		d := deploy(t, "auto", 5*time.Second, 0, map[string]string{"A2A_FILES_BUCKET": bucket})
		task, rpcErr := d.sendText(t, text)
		require.Nil(t, rpcErr)
		require.Equal(t, a2a.TaskStateCompleted, task.Status.State, "send: %s", d.send.Stderr())
		var files *a2a.Artifact
		for i := range task.Artifacts {
			if task.Artifacts[i].Name == "files" {
				files = &task.Artifacts[i]
			}
		}
		require.NotNil(t, files, "the text came back as a file: %+v", task.Artifacts)
		f := files.Parts[0].File
		assert.Equal(t, "text/plain", f.MimeType)
		assert.Contains(t, f.URI, "/"+bucket+"/files/", "a presigned URL of the bucket")
		resp, err := http.Get(f.URI)
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, sha256.Sum256([]byte(text)), sha256.Sum256(got))

		rec, err := d.f.store.GetTask(context.Background(), task.ID, store.AllHistory)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(rec.Task.History[0].Parts[0].File.URI, "a2a-file:"), "the task item holds the file's URI")
		assert.Less(t, rec.Task.History[0].ApproxSize(), 1024)
	})
	t.Run("without a bucket", func(t *testing.T) {
		d := deploy(t, "auto", 5*time.Second, 0, nil)
		_, rpcErr := d.sendText(t, text)
		require.NotNil(t, rpcErr)
		assert.Equal(t, a2a.CodeInvalidParams, rpcErr.Code, rpcErr.Message)
		assert.Contains(t, rpcErr.Message, "exceeds the storage limit of 389120 bytes")
		page, err := d.f.store.ListTasks(context.Background(), store.ListQuery{Owner: "default", PageSize: 10})
		require.NoError(t, err)
		assert.Empty(t, page.Tasks, "no task was stored")
	})
}
