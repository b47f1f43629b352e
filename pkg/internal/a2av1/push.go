package a2av1

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Push notifications of configs created under A2A 1.0 carry a
// StreamResponse, sent with Content-Type ContentType
// (application/a2a+json), whatever binding the client registered through.

// TaskNotification renders the body of a push notification that reports a
// task snapshot: the StreamResponse {"task": <t in its 1.0 form>}. It is
// the 1.0 counterpart of the 0.3 body (the bare task), and the same object
// as SendMessage's result for a task; send it as ContentType.
func TaskNotification(t *a2a.Task) ([]byte, error) {
	return AppendSendResult(make([]byte, 0, 512), t)
}

// StatusUpdateNotification renders the body of a push notification that
// reports only a task's status: the StreamResponse {"statusUpdate":
// {"taskId", "contextId", "status"}} built from the snapshot t (its history
// and artifacts are not sent). Send it as ContentType.
func StatusUpdateNotification(t *a2a.Task) ([]byte, error) {
	ev := a2a.Event{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Status: t.Status}}
	return AppendStreamResponse(make([]byte, 0, 256), &ev)
}
