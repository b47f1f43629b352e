package dynamo

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// taskItem is the task item (SK "H"). Protocol objects are stored as JSON,
// as the wire has them.
type taskItem struct {
	PK        string `dynamodbav:"PK"`
	SK        string `dynamodbav:"SK"`
	Owner     string `dynamodbav:"owner"`
	ContextID string `dynamodbav:"contextId"`
	State     string `dynamodbav:"state"`
	// Status is the a2a.TaskStatus, its message included.
	Status          string `dynamodbav:"status"`
	Metadata        string `dynamodbav:"taskMetadata,omitempty"`
	Version         int64  `dynamodbav:"version"`
	CreatedAt       int64  `dynamodbav:"createdAt"` // Unix nanoseconds
	UpdatedAt       int64  `dynamodbav:"updatedAt"` // Unix nanoseconds
	Checkpoint      []byte `dynamodbav:"checkpoint,omitempty"`
	RequestMetadata string `dynamodbav:"requestMetadata,omitempty"`
	// ExpiresAt is the TTL attribute (epoch seconds).
	ExpiresAt int64 `dynamodbav:"expiresAt"`
	// ChildrenExpireAt is at most the expiresAt of every message and
	// artifact of the task (see expiry.go).
	ChildrenExpireAt int64  `dynamodbav:"childrenExpireAt"`
	ListOwner        string `dynamodbav:"listOwner"`
	ListContext      string `dynamodbav:"listContext"`
	ListSK           string `dynamodbav:"listSK"`
	// Pending is the JSON of the interrupt a step asked for and that is not
	// activated yet (store.PendingInterrupt).
	Pending string `dynamodbav:"pending,omitempty"`
	// AwaitingJob is set while the task waits for a runner (see Defer).
	// Feedback is the JSON of the client's rating (store.Feedback),
	// written only once the task is terminal (contexts.go).
	Feedback string `dynamodbav:"feedback,omitempty"`
	// SessionID is the task's agent session (store.TaskRecord.SessionID)
	// and ContextSession the session bound to its context when it was
	// created (see contexts.go).
	SessionID      string `dynamodbav:"sessionId,omitempty"`
	ContextSession string `dynamodbav:"contextSession,omitempty"`
	// RecordOf is set on an idempotency record kept at a task's key, which
	// is no task (see recordPut).
	RecordOf      string `dynamodbav:"recordOf,omitempty"`
	AwaitingJob   string `dynamodbav:"awaitingJob,omitempty"`
	AwaitingSince int64  `dynamodbav:"awaitingSince,omitempty"`
	// PushConfigs are the ids of the task's push configs (see push.go).
	PushConfigs []string `dynamodbav:"pushConfigs,stringset,omitempty"`
	// CompletedArtifacts are the ids of the artifacts the last update
	// completed; absent when it completed none (see stream.go).
	CompletedArtifacts []string `dynamodbav:"completedArtifacts,omitempty"`
	// Inbox counts the task's inbox items and InboxSeq the messages ever
	// appended to it (see inbox.go).
	Inbox    int   `dynamodbav:"inbox,omitempty"`
	InboxSeq int64 `dynamodbav:"inboxSeq,omitempty"`
	// FirstMessage is the JSON of the task's first message when it is
	// small (see maxInlineMessageBytes): it then has no item of its own.
	// Tasks written before it existed, and tasks whose first message is
	// larger, keep that message as the history item at version 1.
	FirstMessage string `dynamodbav:"firstMessage,omitempty"`
	// StatusInHistory says that the status message is also the history's
	// last message, and Artifacts (JSON) holds artifacts of the task, for
	// a task created finished (see CreateTask) or finished by an update in
	// place (see finishesInPlace): nothing changes them later. They
	// replace the artifact items with their ids, and follow the others.
	StatusInHistory bool   `dynamodbav:"statusInHistory,omitempty"`
	Artifacts       string `dynamodbav:"artifacts,omitempty"`
	// Trace is the X-Ray trace header of the traced invocation that last
	// created or changed the task (tracing.Header): the push function hands
	// it to the delivery jobs of the change (see stream.go), so that the
	// delivery joins the task's trace. Absent when no change was traced; a
	// change outside a trace keeps the header of the last one that was.
	Trace string `dynamodbav:"trace,omitempty"`
	// ExecutionARN is the Step Functions execution that last ran a step of
	// the task (store.TaskRecord.ExecutionARN).
	ExecutionARN string `dynamodbav:"executionArn,omitempty"`
	// Fingerprint is the fingerprint of the send that created the task
	// (store.NewTask.Fingerprint).
	Fingerprint string `dynamodbav:"fp,omitempty"`
	// HasPush is set when the task gains its first push config, and never
	// removed: the push function's stream filter lets through only the
	// changes of tasks that have it (see push.go).
	HasPush bool `dynamodbav:"hasPush,omitempty"`
	leaseAttrs
}

// Attribute names of the task item used in expressions.
const (
	attrOwner            = "owner"
	attrStatus           = "status"
	attrVersion          = "version"
	attrUpdatedAt        = "updatedAt"
	attrCheckpoint       = "checkpoint"
	attrRequestMetadata  = "requestMetadata"
	attrChildrenExpireAt = "childrenExpireAt"
	attrPending          = "pending"
	attrAwaitingJob      = "awaitingJob"
	attrAwaitingSince    = "awaitingSince"
	attrData             = "data"
	attrOrder            = "ord"
	attrInbox            = "inbox"
	attrInboxSeq         = "inboxSeq"
	attrRecordOf         = "recordOf"
	attrTrace            = "trace"
	attrExecutionARN     = "executionArn"
	attrHasPush          = "hasPush"
	attrStatusInHistory  = "statusInHistory"
	attrArtifacts        = "artifacts"
	attrFingerprint      = "fp"
	attrCreatedAt        = "createdAt"
)

// maxInlineMessageBytes bounds the first message kept inside the task item:
// a small one costs no item (and no transactional write) of its own, and
// adds at most one write unit to the task item's later writes.
const maxInlineMessageBytes = 1024

// maxInlineArtifactBytes bounds the artifacts a task created finished keeps
// inside its item (larger ones are items of their own, as updates write
// them): small enough that the task item stays within a few write units.
const maxInlineArtifactBytes = 2048

// childItem is a history message or an artifact: its JSON, and for
// artifacts the order in which they were first stored.
type childItem struct {
	PK        string `dynamodbav:"PK"`
	SK        string `dynamodbav:"SK"`
	Data      string `dynamodbav:"data"`
	Order     int64  `dynamodbav:"ord,omitempty"`
	ExpiresAt int64  `dynamodbav:"expiresAt"`
}

// recordItem records that (owner, messageId) created or continued the task
// RecordOf (see recordPut).
type recordItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	RecordOf    string `dynamodbav:"recordOf"`
	Fingerprint string `dynamodbav:"fp,omitempty"`
	ExpiresAt   int64  `dynamodbav:"expiresAt"`
}

func marshalItem(v any) (map[string]dynamodb.AttributeValue, error) {
	m, err := dynamodb.MarshalMap(v)
	if err != nil {
		return nil, fmt.Errorf("dynamo: encode item: %w", err)
	}
	return m, nil
}

func decodeTaskItem(m map[string]dynamodb.AttributeValue) (*taskItem, error) {
	var it taskItem
	if err := dynamodb.UnmarshalMap(m, &it); err != nil {
		return nil, fmt.Errorf("dynamo: decode task item: %w", err)
	}
	return &it, nil
}

// live reports whether the item is a task that has not expired at t.
func (it *taskItem) live(t clockTimes) bool { return it.RecordOf == "" && t.unix < it.ExpiresAt }

// record turns the task item into a record without history or artifacts.
func (it *taskItem) record() (*store.TaskRecord, error) {
	rec := &store.TaskRecord{
		Task:       a2a.Task{ID: taskIDFromPK(it.PK), ContextID: it.ContextID},
		Owner:      it.Owner,
		Version:    it.Version,
		CreatedAt:  time.Unix(0, it.CreatedAt).UTC(),
		UpdatedAt:  time.Unix(0, it.UpdatedAt).UTC(),
		Checkpoint: it.Checkpoint,
		SessionID:  it.SessionID,
		Inbox:      it.Inbox,
		Lease:      it.lease(),
		Takeovers:  it.Takeovers,

		ExecutionARN: it.ExecutionARN,
		Fingerprint:  it.Fingerprint,
	}
	if err := json.Unmarshal([]byte(it.Status), &rec.Task.Status); err != nil {
		return nil, fmt.Errorf("dynamo: decode status of task %s: %w", rec.Task.ID, err)
	}
	if m := rec.Task.Status.Message; m != nil {
		withIDs(m, rec.Task.ID, rec.Task.ContextID)
	}
	if err := unmarshalOptional(it.Metadata, &rec.Task.Metadata); err != nil {
		return nil, fmt.Errorf("dynamo: decode metadata of task %s: %w", rec.Task.ID, err)
	}
	if err := unmarshalOptional(it.RequestMetadata, &rec.RequestMetadata); err != nil {
		return nil, fmt.Errorf("dynamo: decode request metadata of task %s: %w", rec.Task.ID, err)
	}
	if it.Feedback != "" {
		rec.Feedback = &store.Feedback{}
		if err := json.Unmarshal([]byte(it.Feedback), rec.Feedback); err != nil {
			return nil, fmt.Errorf("dynamo: decode feedback of task %s: %w", rec.Task.ID, err)
		}
	}
	if it.Pending != "" {
		rec.Pending = &store.PendingInterrupt{}
		if err := json.Unmarshal([]byte(it.Pending), rec.Pending); err != nil {
			return nil, fmt.Errorf("dynamo: decode pending interrupt of task %s: %w", rec.Task.ID, err)
		}
	}
	return rec, nil
}

func unmarshalOptional(s string, v any) error {
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), v)
}

// The task item keeps its status message and its first message without the
// ids of the task and its context, which it holds itself (every message of
// a task carries them: the service and the executor set them): about 100
// bytes less per message, which keeps a small finished task within one
// write unit. Reads put them back (withIDs).

// encodeStatus is the JSON of status as the task item keeps it.
func encodeStatus(status a2a.TaskStatus) (string, error) {
	if m := status.Message; m != nil && (m.TaskID != "" || m.ContextID != "") {
		c := *m
		c.TaskID, c.ContextID = "", ""
		status.Message = &c
	}
	return encodeJSON("status", status)
}

// encodeFirstMessage is the JSON of a task's first message as the task item
// keeps it.
func encodeFirstMessage(m a2a.Message) (string, error) {
	m.TaskID, m.ContextID = "", ""
	return encodeJSON("message", m)
}

// withIDs gives m the ids of the task it belongs to when it was kept
// without them.
func withIDs(m *a2a.Message, taskID, contextID string) {
	if m.TaskID == "" {
		m.TaskID = taskID
	}
	if m.ContextID == "" {
		m.ContextID = contextID
	}
}

// encodeJSON returns the JSON of v, refusing more than
// store.MaxContentBytes with a *store.TooLargeError naming what: the
// size rule every store shares (store.EncodeContent).
func encodeJSON(what string, v any) (string, error) {
	b, err := store.EncodeContent(what, v)
	var tl *store.TooLargeError
	if err != nil && !errors.As(err, &tl) {
		return "", fmt.Errorf("dynamo: %w", err)
	}
	return string(b), err
}

// encodeMetadata is encodeJSON that keeps nil metadata absent.
func encodeMetadata(what string, md a2a.Metadata) (string, error) {
	if md == nil {
		return "", nil
	}
	return encodeJSON(what, md)
}

// partition is a task's items as one Query read them.
type partition struct {
	task      *taskItem
	artifacts []childItem
	// messages are newest first, as the table sorts them.
	messages []childItem
}

func (p *partition) add(m map[string]dynamodb.AttributeValue) error {
	sk, _ := m[attrSK].(*dynamodb.AttributeValueMemberS)
	if sk == nil {
		return fmt.Errorf("dynamo: item without a sort key")
	}
	switch {
	case sk.Value == skTask:
		it, err := decodeTaskItem(m)
		if err != nil {
			return err
		}
		p.task = it
	case strings.HasPrefix(sk.Value, skMessagePrefix):
		var c childItem
		if err := dynamodb.UnmarshalMap(m, &c); err != nil {
			return fmt.Errorf("dynamo: decode message %s: %w", sk.Value, err)
		}
		p.messages = append(p.messages, c)
	case strings.HasPrefix(sk.Value, skArtifactPrefix):
		var c childItem
		if err := dynamodb.UnmarshalMap(m, &c); err != nil {
			return fmt.Errorf("dynamo: decode artifact %s: %w", sk.Value, err)
		}
		p.artifacts = append(p.artifacts, c)
	}
	return nil
}

// record assembles the task with at most historyLength messages (negative:
// all) and, when asked, its artifacts in the order they were first stored.
func (p *partition) record(historyLength int, artifacts bool) (*store.TaskRecord, error) {
	rec, err := p.task.record()
	if err != nil {
		return nil, err
	}
	// The history, newest first: the status message when it is also the
	// last message, the messages' items, then the first message when it is
	// inside the task item (the oldest of all: a read that stopped early
	// holds at least the historyLength newer ones, so the cut drops it).
	var newest []a2a.Message
	if p.task.StatusInHistory && rec.Task.Status.Message != nil {
		newest = append(newest, *rec.Task.Status.Message)
	}
	msgs := p.messages
	if first := p.task.FirstMessage; first != "" {
		msgs = append(slices.Clone(msgs), childItem{PK: p.task.PK, SK: messageSK(1, 0), Data: first})
	}
	for _, c := range msgs {
		if historyLength >= 0 && len(newest) >= historyLength {
			break
		}
		var m a2a.Message
		if err := json.Unmarshal([]byte(c.Data), &m); err != nil {
			return nil, fmt.Errorf("dynamo: decode message %s of task %s: %w", c.SK, rec.Task.ID, err)
		}
		withIDs(&m, rec.Task.ID, rec.Task.ContextID)
		newest = append(newest, m)
	}
	if historyLength >= 0 && len(newest) > historyLength {
		newest = newest[:historyLength]
	}
	for i := len(newest) - 1; i >= 0; i-- { // oldest first
		rec.Task.History = append(rec.Task.History, newest[i])
	}
	if artifacts {
		arts := slices.Clone(p.artifacts)
		slices.SortStableFunc(arts, func(a, b childItem) int { return cmp.Compare(a.Order, b.Order) })
		for _, c := range arts {
			var a a2a.Artifact
			if err := json.Unmarshal([]byte(c.Data), &a); err != nil {
				return nil, fmt.Errorf("dynamo: decode artifact %s of task %s: %w", c.SK, rec.Task.ID, err)
			}
			rec.Task.Artifacts = append(rec.Task.Artifacts, a)
		}
	}
	if artifacts && p.task.Artifacts != "" {
		var inline []a2a.Artifact
		if err := json.Unmarshal([]byte(p.task.Artifacts), &inline); err != nil {
			return nil, fmt.Errorf("dynamo: decode artifacts of task %s: %w", rec.Task.ID, err)
		}
		for _, a := range inline {
			i := slices.IndexFunc(rec.Task.Artifacts, func(b a2a.Artifact) bool { return b.ArtifactID == a.ArtifactID })
			if i < 0 {
				rec.Task.Artifacts = append(rec.Task.Artifacts, a)
			} else {
				rec.Task.Artifacts[i] = a
			}
		}
	}
	return rec, nil
}
