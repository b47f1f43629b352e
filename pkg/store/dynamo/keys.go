package dynamo

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// The table's item layout.
//
//	item                PK                  SK
//	artifact            T#<taskId>          A#<artifactId>
//	task                T#<taskId>          H
//	history message     T#<taskId>          H#<inverted version>#<inverted index>
//	                    (a first message of at most 1 KiB is inside the task item instead)
//	push config         T#<taskId>          P#<configId>          (see push.go)
//	idempotency record  T#<TaskIDFor(owner, messageId)>  H       recordOf <taskId>
//	                    (the task of that id, while it lives, is the record itself; see recordPut)
//	interrupt binding   R#<requestId>       R                     (see interrupts.go)
//
// Within a task's partition, artifacts sort before the task item and
// messages after it, newest first (a message's key inverts the version of
// the update that appended it, then its index in that update). So one Query
// with
//
//	SK = H                       reads the task alone,
//	SK BETWEEN A# AND H          the task and its artifacts,
//	SK begins_with H, Limit N+1  the task and its N most recent messages,
//	SK BETWEEN A# AND H$         all of it (H$ sorts after every H#...),
//
// and push configs (P#) never get in the way.
//
// The task item also carries the keys of two global secondary indexes:
//
//	index      partition key                        sort key
//	byOwner    listOwner   = O#<owner> or O<k>#<owner>   listSK = <status timestamp>#<taskId>
//	                         (k: the task's shard, see shards.go)
//	byContext  listContext = C#<sha256(owner, contextId)>   listSK
//
// The status timestamp is fixed width (a2a.FormatTime), so listSK sorts by
// time, then task id: a descending Query lists newest status first. Both
// indexes project state and expiresAt, to filter without reading tasks.
const (
	attrPK = "PK"
	attrSK = "SK"

	skTask           = "H"
	skMessagePrefix  = "H#"
	skHistoryEnd     = "H$"
	skArtifactPrefix = "A#"
	// skInboxPrefix starts the sort keys of inbox items (see inbox.go).
	skInboxPrefix = "N#"

	indexByOwner   = "byOwner"
	indexByContext = "byContext"

	attrListOwner   = "listOwner"
	attrListContext = "listContext"
	attrListSK      = "listSK"
	attrState       = "state"
	attrExpiresAt   = "expiresAt"

	// maxVersion bounds versions and maxIndex the messages of one update,
	// so that their inverted forms have a fixed width.
	maxVersion = 9_999_999_999
	maxIndex   = 999
	// maxKeyBytes is DynamoDB's limit for a partition key (sort keys: 1024).
	maxKeyBytes = 2048
)

func taskPK(taskID string) string { return "T#" + taskID }

func taskIDFromPK(pk string) string { return strings.TrimPrefix(pk, "T#") }

// validTaskID reports whether a task with this id can exist: ids that
// cannot be a key are unknown tasks, not errors.
func validTaskID(taskID string) bool {
	return taskID != "" && len(taskPK(taskID)) <= maxKeyBytes && utf8.ValidString(taskID)
}

func messageSK(version int64, index int) string {
	return fmt.Sprintf("%s%010d#%03d", skMessagePrefix, maxVersion-version, maxIndex-index)
}

func artifactSK(artifactID string) string { return skArtifactPrefix + artifactID }

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func listContextKey(owner, contextID string) string { return "C#" + digest(owner, contextID) }

func listSK(statusTimestamp, taskID string) string { return statusTimestamp + "#" + taskID }

func key(pk, sk string) map[string]dynamodb.AttributeValue {
	return map[string]dynamodb.AttributeValue{
		attrPK: &dynamodb.AttributeValueMemberS{Value: pk},
		attrSK: &dynamodb.AttributeValueMemberS{Value: sk},
	}
}

func taskKey(taskID string) map[string]dynamodb.AttributeValue { return key(taskPK(taskID), skTask) }

// A list cursor is the listSK of the last task of a page, base64url
// encoded. It only positions a query that is already restricted to the
// caller's index partition, so a forged cursor cannot reach other tasks.

func encodeCursor(sk string) string { return base64.RawURLEncoding.EncodeToString([]byte(sk)) }

// decodeCursor returns the listSK and task id of a cursor, or an invalid
// params error.
func decodeCursor(c string) (sk, taskID string, err error) {
	return decodeListCursor(c, validTaskID)
}

// decodeListCursor reads a cursor, the base64url of an index sort key
// <timestamp>#<id>, whose id part must satisfy valid. It returns the sort
// key and its id part, or an invalid params error.
func decodeListCursor(c string, valid func(id string) bool) (sk, id string, err error) {
	bad := a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
	if len(c) > 2*maxKeyBytes {
		return "", "", bad
	}
	b, derr := base64.RawURLEncoding.DecodeString(c)
	if derr != nil || !utf8.Valid(b) {
		return "", "", bad
	}
	sk = string(b)
	ts, id, ok := strings.Cut(sk, "#")
	if !ok || !valid(id) || len(sk) > 1024 {
		return "", "", bad
	}
	if ts != "" {
		if _, perr := a2a.ParseTime(ts); perr != nil {
			return "", "", bad
		}
	}
	return sk, id, nil
}
