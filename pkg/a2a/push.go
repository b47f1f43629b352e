package a2a

// PushNotificationConfig tells the server where and how to notify a client
// about task changes.
type PushNotificationConfig struct {
	ID             string                  `json:"id,omitempty"`
	URL            string                  `json:"url"`
	Token          string                  `json:"token,omitempty"`
	Authentication *PushAuthenticationInfo `json:"authentication,omitempty"`
}

// PushAuthenticationInfo says how the server authenticates to the webhook.
type PushAuthenticationInfo struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// TaskPushNotificationConfig binds a push config to a task.
type TaskPushNotificationConfig struct {
	TaskID                 string                 `json:"taskId"`
	PushNotificationConfig PushNotificationConfig `json:"pushNotificationConfig"`
}

// GetTaskPushNotificationConfigParams are the params of
// tasks/pushNotificationConfig/get.
type GetTaskPushNotificationConfigParams struct {
	ID                       string   `json:"id"`
	PushNotificationConfigID string   `json:"pushNotificationConfigId,omitempty"`
	Metadata                 Metadata `json:"metadata,omitempty"`
}

// ListTaskPushNotificationConfigParams are the params of
// tasks/pushNotificationConfig/list.
type ListTaskPushNotificationConfigParams struct {
	ID       string   `json:"id"`
	Metadata Metadata `json:"metadata,omitempty"`
}

// DeleteTaskPushNotificationConfigParams are the params of
// tasks/pushNotificationConfig/delete.
type DeleteTaskPushNotificationConfigParams struct {
	ID                       string   `json:"id"`
	PushNotificationConfigID string   `json:"pushNotificationConfigId"`
	Metadata                 Metadata `json:"metadata,omitempty"`
}
