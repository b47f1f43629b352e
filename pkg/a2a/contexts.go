package a2a

import "strings"

// The Bindu extension methods: feedback on finished tasks, and the
// caller's conversation contexts.
const (
	MethodTasksFeedback = "tasks/feedback"
	MethodContextsList  = "contexts/list"
	MethodContextsClear = "contexts/clear"
)

// Feedback ratings.
const (
	MinRating = 1
	MaxRating = 5
)

// TaskFeedbackParams are the params of tasks/feedback.
type TaskFeedbackParams struct {
	TaskID  string `json:"taskId"`
	Rating  int    `json:"rating"`
	Comment string `json:"comment,omitempty"`
}

// MaxFeedbackComment bounds a feedback comment, in bytes.
const MaxFeedbackComment = 4096

// Validate checks tasks/feedback params.
func (p *TaskFeedbackParams) Validate() error {
	if strings.TrimSpace(p.TaskID) == "" {
		return InvalidParams("params.taskId", "is required")
	}
	if p.Rating < MinRating || p.Rating > MaxRating {
		return InvalidParams("params.rating", "must be between %d and %d, got %d", MinRating, MaxRating, p.Rating)
	}
	if len(p.Comment) > MaxFeedbackComment {
		return InvalidParams("params.comment", "must be at most %d bytes, got %d", MaxFeedbackComment, len(p.Comment))
	}
	return nil
}

// OKResult is the result of tasks/feedback and contexts/clear.
type OKResult struct {
	OK bool `json:"ok"`
}

// ListContextsParams are the params of contexts/list.
type ListContextsParams struct {
	PageSize  *int   `json:"pageSize,omitempty"`
	PageToken string `json:"pageToken,omitempty"`
}

// Validate checks contexts/list params.
func (p *ListContextsParams) Validate() error {
	if p.PageSize != nil && (*p.PageSize < 1 || *p.PageSize > MaxPageSize) {
		return InvalidParams("params.pageSize", "must be between 1 and %d, got %d", MaxPageSize, *p.PageSize)
	}
	return nil
}

// ContextInfo describes one of the caller's contexts.
type ContextInfo struct {
	ContextID string `json:"contextId"`
	// TaskCount is the number of tasks created in the context (since it
	// was last cleared).
	TaskCount int `json:"taskCount"`
	// UpdatedAt is when the context's latest task was created.
	UpdatedAt string `json:"updatedAt"`
}

// ListContextsResult is the result of contexts/list.
type ListContextsResult struct {
	Contexts      []ContextInfo `json:"contexts"`
	NextPageToken string        `json:"nextPageToken"`
}

// ClearContextParams are the params of contexts/clear.
type ClearContextParams struct {
	ContextID string `json:"contextId"`
}

// Validate checks contexts/clear params.
func (p *ClearContextParams) Validate() error {
	if strings.TrimSpace(p.ContextID) == "" {
		return InvalidParams("params.contextId", "is required")
	}
	return nil
}
