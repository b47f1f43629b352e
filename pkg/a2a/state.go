package a2a

import "time"

// ProtocolVersion is the A2A protocol version of the default wire format.
const ProtocolVersion = "0.3.0"

// TaskState is the lifecycle state of a task.
type TaskState string

// The task states of A2A 0.3.
const (
	TaskStateSubmitted     TaskState = "submitted"
	TaskStateWorking       TaskState = "working"
	TaskStateInputRequired TaskState = "input-required"
	TaskStateAuthRequired  TaskState = "auth-required"
	TaskStateCompleted     TaskState = "completed"
	TaskStateCanceled      TaskState = "canceled"
	TaskStateFailed        TaskState = "failed"
	TaskStateRejected      TaskState = "rejected"
	TaskStateUnknown       TaskState = "unknown"
)

// TaskStates lists every state in lifecycle order.
var TaskStates = []TaskState{
	TaskStateSubmitted, TaskStateWorking, TaskStateInputRequired, TaskStateAuthRequired,
	TaskStateCompleted, TaskStateCanceled, TaskStateFailed, TaskStateRejected, TaskStateUnknown,
}

// Terminal reports whether nothing can follow the state: completed, canceled,
// failed or rejected.
func (s TaskState) Terminal() bool {
	switch s {
	case TaskStateCompleted, TaskStateCanceled, TaskStateFailed, TaskStateRejected:
		return true
	}
	return false
}

// Interrupted reports whether the task waits for its client: input-required or
// auth-required.
func (s TaskState) Interrupted() bool {
	return s == TaskStateInputRequired || s == TaskStateAuthRequired
}

// Settled reports whether a blocking client should be answered: the task is
// terminal or interrupted.
func (s TaskState) Settled() bool { return s.Terminal() || s.Interrupted() }

// Valid reports whether s is one of the protocol's states.
func (s TaskState) Valid() bool {
	for _, v := range TaskStates {
		if s == v {
			return true
		}
	}
	return false
}

// Role says who sent a message.
type Role string

// Message roles.
const (
	RoleUser  Role = "user"
	RoleAgent Role = "agent"
)

// timeLayout is fixed width (millisecond precision, UTC) so that formatted
// timestamps sort lexicographically in time order, which the list index uses.
const timeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as an ISO 8601 UTC timestamp with millisecond
// precision, the form used for every timestamp this server writes. It
// writes the digits itself: a blocking send formats two timestamps, and
// time.Format reads a custom layout anew on every call.
func FormatTime(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format(timeLayout) // wider than the layout: Format's digits
	}
	hour, minute, second := t.Clock()
	var b [len(timeLayout)]byte
	copy(b[:], timeLayout)
	putDigits(b[0:4], year)
	putDigits(b[5:7], int(month))
	putDigits(b[8:10], day)
	putDigits(b[11:13], hour)
	putDigits(b[14:16], minute)
	putDigits(b[17:19], second)
	putDigits(b[20:23], t.Nanosecond()/int(time.Millisecond))
	return string(b[:])
}

// putDigits writes v's last len(b) decimal digits into b, zero-padded.
func putDigits(b []byte, v int) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
}

// ParseTime parses an ISO 8601 / RFC 3339 timestamp.
func ParseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }
