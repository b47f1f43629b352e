package a2a

// JSON-RPC method names of A2A 0.3 and of the extension methods this server
// serves under 0.3.
const (
	MethodMessageSend      = "message/send"
	MethodMessageStream    = "message/stream"
	MethodTasksGet         = "tasks/get"
	MethodTasksList        = "tasks/list"
	MethodTasksCancel      = "tasks/cancel"
	MethodTasksResubscribe = "tasks/resubscribe"
	MethodPushConfigSet    = "tasks/pushNotificationConfig/set"
	MethodPushConfigGet    = "tasks/pushNotificationConfig/get"
	MethodPushConfigList   = "tasks/pushNotificationConfig/list"
	MethodPushConfigDelete = "tasks/pushNotificationConfig/delete"
	MethodGetExtendedCard  = "agent/getAuthenticatedExtendedCard"
)

// MessageSendParams are the params of message/send.
type MessageSendParams struct {
	Message       Message                   `json:"message"`
	Configuration *MessageSendConfiguration `json:"configuration,omitempty"`
	Metadata      Metadata                  `json:"metadata,omitempty"`
	// Protocol is the A2A version of the request (V03 or V10), set by
	// the edge, not the wire: it chooses the body of the notifications of
	// an inline push config.
	Protocol Version `json:"-"`
}

// MessageSendConfiguration tunes how message/send answers.
type MessageSendConfiguration struct {
	AcceptedOutputModes    []string                `json:"acceptedOutputModes,omitempty"`
	HistoryLength          *int                    `json:"historyLength,omitempty"`
	PushNotificationConfig *PushNotificationConfig `json:"pushNotificationConfig,omitempty"`
	Blocking               *bool                   `json:"blocking,omitempty"`
}

// TaskQueryParams are the params of tasks/get.
type TaskQueryParams struct {
	ID            string   `json:"id"`
	HistoryLength *int     `json:"historyLength,omitempty"`
	Metadata      Metadata `json:"metadata,omitempty"`
}

// TaskIDParams name a task (tasks/cancel, tasks/resubscribe).
type TaskIDParams struct {
	ID       string   `json:"id"`
	Metadata Metadata `json:"metadata,omitempty"`
}

// ListTasksParams are the params of tasks/list, shaped like A2A 1.0's
// ListTasksRequest.
type ListTasksParams struct {
	ContextID            string    `json:"contextId,omitempty"`
	Status               TaskState `json:"status,omitempty"`
	PageSize             *int      `json:"pageSize,omitempty"`
	PageToken            string    `json:"pageToken,omitempty"`
	HistoryLength        *int      `json:"historyLength,omitempty"`
	StatusTimestampAfter string    `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     bool      `json:"includeArtifacts,omitempty"`
}

// ListTasksResult is the result of tasks/list.
type ListTasksResult struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

// MarshalJSON writes the model's JSON of the result.
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	return AppendListTasks(make([]byte, 0, 1024), &r, appendTaskModel)
}

// List page size bounds of tasks/list.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)
