package serverless_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// deadLetter is what the push function writes to its dead-letter queue.
type deadLetter struct {
	Reason, Detail, EventID, SequenceNumber, TaskID, ConfigID, Job string
	Version                                                        int64
	Keys                                                           map[string]events.DynamoDBAttributeValue
}

// A record that can never become jobs goes to the dead-letter queue with
// its reason, and the shard moves on: on moto's stream and SQS, a record
// whose job SQS refuses (larger than the queue takes) and a record that
// does not decode are dead-lettered, while the records after them, one of
// them with U+FFFF in its client-chosen contextId (which SQS refuses in a
// message), are delivered. Nothing is left for Lambda to retry.
func TestPoisonRecordGoesToTheDeadLetterQueue(t *testing.T) {
	ctx := context.Background()
	ddb := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "poison")
	require.NoError(t, dynamo.CreateTable(ctx, ddb, table))
	ts, err := dynamo.New(ddb, dynamo.Options{Table: table})
	require.NoError(t, err)

	client := awstest.SQS(t)
	// A queue that takes messages of at most 1 KiB, so that SQS refuses
	// one job of this test for good, as it would any message it cannot
	// take (moto checks the size, not the characters).
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(awstest.UniqueName(t, "small")), Attributes: map[string]string{"MaximumMessageSize": "1024"}})
	require.NoError(t, err)
	queue := aws.ToString(q.QueueUrl)
	_, dlq := awstest.Queues(t, client, 1)

	work := func(taskID, contextID, text string) {
		require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "alice", Task: a2a.Task{
			ID: taskID, ContextID: contextID, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
			History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-" + taskID, Parts: []a2a.Part{a2a.TextPart("hi")}}},
		}, PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "hook", URL: "https://hooks.example.com/a2a"}, ProtocolVersion: a2a.V03}}}))
		msg := &a2a.Message{Role: a2a.RoleAgent, MessageID: "s-" + taskID, Parts: []a2a.Part{a2a.TextPart(text)}}
		_, err := ts.UpdateTask(ctx, store.Update{TaskID: taskID, Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Message: msg, Timestamp: a2a.FormatTime(time.Now())}})
		require.NoError(t, err)
	}
	work("t-too-large", "c-1", strings.Repeat("far too long for the queue ", 60))
	work("t-garbled", "c-garbled", "fine")
	// An item the push function cannot read (written by hand, say).
	_, err = ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
		Key:              map[string]dynamodb.AttributeValue{"PK": &dynamodb.AttributeValueMemberS{Value: "T#t-garbled"}, "SK": &dynamodb.AttributeValueMemberS{Value: "H"}},
		UpdateExpression: aws.String("SET version = :v"), ExpressionAttributeValues: map[string]dynamodb.AttributeValue{":v": &dynamodb.AttributeValueMemberS{Value: "garbled"}}})
	require.NoError(t, err)
	const oddContext = "c-\uffff-chosen-by-the-client"
	work("t-odd-context", oddContext, "fine")
	work("t-next", "c-2", "fine")

	recs, err := awstest.NewStreamReader(t, table).Read(ctx)
	require.NoError(t, err)
	f, err := serverless.NewFanout(awstest.SQSCall(t, sqscall.Options{}), queue, dynamo.ChangeFromStream, nil)
	require.NoError(t, err)
	resp, err := f.WithDeadLetter(dlq).Handle(ctx, events.DynamoDBEvent{Records: recs})
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures, "nothing holds the shard")

	delivered := map[string]notify.Job{}
	for _, m := range receiveAll(t, client, queue) {
		assert.True(t, utf8.ValidString(m.Body) && !strings.ContainsRune(m.Body, '\uffff'), "the body holds only characters SQS takes: %q", m.Body)
		j, err := notify.DecodeJob([]byte(m.Body))
		require.NoError(t, err)
		delivered[j.TaskID] = j
	}
	// t-garbled's change to working was readable: only the record that
	// garbled its item is poison.
	assert.ElementsMatch(t, []string{"t-garbled", "t-odd-context", "t-next"}, slices.Collect(maps.Keys(delivered)), "the records after the poison ones are delivered")
	assert.Equal(t, oddContext, delivered["t-odd-context"].Task.ContextID, "the escaped contextId reads back as the client wrote it")

	dead := map[string]deadLetter{}
	for _, m := range receiveAll(t, client, dlq) {
		var dl deadLetter
		require.NoError(t, json.Unmarshal([]byte(m.Body), &dl), m.Body)
		assert.Equal(t, dl.Reason, aws.ToString(m.MessageAttributes["reason"].StringValue))
		assert.Equal(t, dl.SequenceNumber, aws.ToString(m.MessageAttributes["sequenceNumber"].StringValue))
		assert.NotEmpty(t, dl.SequenceNumber)
		dead[dl.Reason] = dl
	}
	require.Len(t, dead, 2, "one dead letter per poison record")
	refused := dead[serverless.ReasonRefused]
	assert.Equal(t, "t-too-large", refused.TaskID)
	assert.Equal(t, "hook", refused.ConfigID)
	assert.Contains(t, refused.Detail, "InvalidParameterValue")
	j, err := notify.DecodeJob([]byte(refused.Job))
	require.NoError(t, err, "the refused job is kept, to replay")
	assert.Equal(t, "t-too-large", j.TaskID)
	garbled := dead[serverless.ReasonUndecodable]
	assert.Equal(t, "T#t-garbled", garbled.Keys["PK"].String(), "the record's item is named")
	assert.Contains(t, garbled.Detail, "decode task item")
}

// receiveAll reads every message of a queue.
func receiveAll(t *testing.T, client *sqs.Client, url string) []events.SQSMessage {
	var all []events.SQSMessage
	for {
		msgs := awstest.Receive(t, client, url, 0)
		if len(msgs) == 0 {
			return all
		}
		all = append(all, msgs...)
	}
}

// strictSQS refuses, as SQS does and moto does not, an entry whose body
// holds a character outside #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD |
// #x10000-#x10FFFF (InvalidMessageContents, SenderFault), and an entry the
// test marks as refused with code; it takes every other and keeps what it
// took. SendMessage (the dead-letter queue) is kept apart.
type strictSQS struct {
	serverless.SQS
	mu      sync.Mutex
	refuse  map[string]string // marker in the body -> error code
	outage  bool              // the queue answers every call with a 500
	taken   []string
	letters []letter
}

// letter is a message sent with SendMessage.
type letter struct {
	queueURL string
	sqscall.Message
}

func (s *strictSQS) SendMessageBatch(_ context.Context, _ string, batch []sqscall.Message) (sqscall.BatchResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outage {
		return sqscall.BatchResult{}, errors.New("503 Service Unavailable")
	}
	var out sqscall.BatchResult
	for _, e := range batch {
		body := e.Body
		code := ""
		if strings.IndexFunc(body, func(r rune) bool { return serverless.SQSText(string(r)) != string(r) }) >= 0 {
			code = "InvalidMessageContents"
		}
		for marker, c := range s.refuse {
			if strings.Contains(body, marker) {
				code = c
			}
		}
		if code != "" {
			out.Failed = append(out.Failed, sqscall.BatchFailed{ID: e.ID, Code: code, Message: "refused", SenderFault: true})
			continue
		}
		s.taken = append(s.taken, body)
		out.Successful = append(out.Successful, sqscall.BatchSent{ID: e.ID})
	}
	return out, nil
}

func (s *strictSQS) SendMessage(_ context.Context, queueURL string, m sqscall.Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.letters = append(s.letters, letter{queueURL, m})
	return "m-1", nil
}

// What SQS refuses for a reason of the message goes to the dead-letter
// queue; what it refuses for a reason of the queue (its KMS key disabled)
// is an outage, retried by the stream, as is a failed call; characters SQS
// refuses never reach it.
func TestFanoutRefusals(t *testing.T) {
	change := func(taskID, contextID string) *store.TaskChange {
		return &store.TaskChange{Task: a2a.Task{ID: taskID, ContextID: contextID}, Version: 2, StatusChanged: true, PushConfigIDs: []string{"a"}}
	}
	decode := func(r events.DynamoDBEventRecord) (*store.TaskChange, error) {
		return change(r.EventID, "ctx-"+r.EventID+"-\uffff\ufffe"), nil
	}
	record := func(id, seq string) events.DynamoDBEventRecord {
		return events.DynamoDBEventRecord{EventID: id, Change: events.DynamoDBStreamRecord{SequenceNumber: seq}}
	}
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{record("t1", "100"), record("t-bad", "101"), record("t2", "102")}}
	for _, tt := range []struct {
		name     string
		sqs      *strictSQS
		failures []events.DynamoDBBatchItemFailure
		taken    []string
		letters  int
	}{
		{"a message refused for good is dead-lettered", &strictSQS{refuse: map[string]string{`"t-bad"`: "InvalidParameterValue"}}, nil, []string{"t1", "t2"}, 1},
		{"a queue whose key is disabled is an outage", &strictSQS{refuse: map[string]string{`"t-bad"`: "KmsDisabled"}}, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "101"}}, []string{"t1"}, 0},
		{"a failed call is retried by the stream", &strictSQS{outage: true}, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "100"}}, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := serverless.NewFanout(tt.sqs, "https://sqs.example/q", decode, nil)
			require.NoError(t, err)
			resp, err := f.WithDeadLetter("https://sqs.example/dlq").Handle(context.Background(), batch)
			require.NoError(t, err)
			assert.Equal(t, tt.failures, resp.BatchItemFailures)
			var taken []string
			for _, body := range tt.sqs.taken {
				j, err := notify.DecodeJob([]byte(body))
				require.NoError(t, err)
				assert.Equal(t, "ctx-"+j.TaskID+"-\uffff\ufffe", j.Task.ContextID, "escaped, it reads back the same")
				taken = append(taken, j.TaskID)
			}
			assert.Equal(t, tt.taken, taken)
			require.Len(t, tt.sqs.letters, tt.letters)
			for _, l := range tt.sqs.letters {
				assert.Equal(t, "https://sqs.example/dlq", l.queueURL)
				assert.Equal(t, serverless.ReasonRefused, l.Attributes["reason"].StringValue)
				assert.Equal(t, "101", l.Attributes["sequenceNumber"].StringValue)
				assert.Contains(t, l.Body, `t-bad`)
			}
		})
	}
}

func TestSQSText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                     "plain",
		"tab\tnew\nline\r":          "tab\tnew\nline\r",
		"nul\x00 bell\x07":          `nul\u0000 bell\u0007`,
		"end\uffff\ufffe":           `end\uffff\ufffe`,
		"replacement \ufffd kept":   "replacement \ufffd kept",
		"private \ue000 \U0010fffd": "private \ue000 \U0010fffd",
		"not utf-8 \xff":            `not utf-8 \ufffd`,
	} {
		assert.Equal(t, want, serverless.SQSText(in), "%q", in)
	}
}

// Whatever a JSON text holds, escaped it has only characters SQS takes and
// reads back as the same value.
func FuzzSQSText(f *testing.F) {
	for _, s := range []string{"", "ctx-\uffff", "\x00\x1f\ufffe", "\xff\xfe", "emoji \U0001F600", `quote " backslash \ `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(map[string]string{"contextId": s})
		require.NoError(t, err)
		out := serverless.SQSText(string(b))
		require.True(t, utf8.ValidString(out))
		for _, r := range out {
			require.Equal(t, string(r), serverless.SQSText(string(r)), "%q is not escaped", r)
		}
		var back, want map[string]string
		require.NoError(t, json.Unmarshal([]byte(out), &back), out)
		require.NoError(t, json.Unmarshal(b, &want))
		require.Equal(t, want, back)
	})
}
