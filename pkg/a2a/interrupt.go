package a2a

import "strings"

// The interrupt callback extension methods (opencode-a2a's shared contract):
// a client answers what an input-required task asks through these, or
// rediscovers pending interrupts after reconnecting.
const (
	MethodInterruptPermissionReply = "a2a.interrupt.permission.reply"
	MethodInterruptQuestionReply   = "a2a.interrupt.question.reply"
	MethodInterruptQuestionReject  = "a2a.interrupt.question.reject"
	MethodInterruptList            = "a2a.interrupt.list"
)

// Interrupt types, as in metadata.shared.interrupt.type.
const (
	InterruptQuestion   = "question"
	InterruptPermission = "permission"
	InterruptAuth       = "auth"
)

// Permission replies.
const (
	PermissionOnce   = "once"
	PermissionAlways = "always"
	PermissionReject = "reject"
)

// The contract spells its members in snake_case (request_id). The params
// decoder accepts snake_case for every member, so the Go tags below are the
// camelCase forms; results are written in the contract's snake_case.

// PermissionReplyParams are the params of a2a.interrupt.permission.reply.
type PermissionReplyParams struct {
	RequestID string   `json:"requestId"`
	Reply     string   `json:"reply"`
	Message   string   `json:"message,omitempty"`
	Metadata  Metadata `json:"metadata,omitempty"`
}

// QuestionReplyParams are the params of a2a.interrupt.question.reply.
type QuestionReplyParams struct {
	RequestID string     `json:"requestId"`
	Answers   [][]string `json:"answers"`
	Metadata  Metadata   `json:"metadata,omitempty"`
}

// QuestionRejectParams are the params of a2a.interrupt.question.reject.
type QuestionRejectParams struct {
	RequestID string   `json:"requestId"`
	Metadata  Metadata `json:"metadata,omitempty"`
}

// InterruptReplyResult is the result of the callback methods.
type InterruptReplyResult struct {
	OK        bool   `json:"ok"`
	RequestID string `json:"request_id"`
}

// ListInterruptsParams are the params of a2a.interrupt.list.
type ListInterruptsParams struct {
	// Type keeps only interrupts of that type when set.
	Type string `json:"type,omitempty"`
}

// InterruptItem is one pending interrupt in a2a.interrupt.list.
type InterruptItem struct {
	RequestID string         `json:"request_id"`
	Type      string         `json:"type"`
	TaskID    string         `json:"task_id"`
	ContextID string         `json:"context_id"`
	Details   map[string]any `json:"details"`
	ExpiresAt string         `json:"expires_at"`
}

// ListInterruptsResult is the result of a2a.interrupt.list.
type ListInterruptsResult struct {
	Items []InterruptItem `json:"items"`
}

func requireRequestID(id string) error {
	if strings.TrimSpace(id) == "" {
		return InvalidParams("params.request_id", "is required")
	}
	return nil
}

// Validate checks permission reply params.
func (p *PermissionReplyParams) Validate() error {
	if err := requireRequestID(p.RequestID); err != nil {
		return err
	}
	switch p.Reply {
	case PermissionOnce, PermissionAlways, PermissionReject:
		return nil
	case "":
		return InvalidParams("params.reply", "is required (once, always or reject)")
	}
	return InvalidParams("params.reply", "must be once, always or reject, got %q", p.Reply)
}

// Validate checks question reply params.
func (p *QuestionReplyParams) Validate() error {
	if err := requireRequestID(p.RequestID); err != nil {
		return err
	}
	if len(p.Answers) == 0 {
		return InvalidParams("params.answers", "must hold one list of answers per question")
	}
	return nil
}

// Validate checks question reject params.
func (p *QuestionRejectParams) Validate() error { return requireRequestID(p.RequestID) }

// Validate checks list params.
func (p *ListInterruptsParams) Validate() error {
	switch p.Type {
	case "", InterruptQuestion, InterruptPermission, InterruptAuth:
		return nil
	}
	return InvalidParams("params.type", "must be question, permission or auth, got %q", p.Type)
}

// InterruptError returns an interrupt extension error: code and reason say
// which, data carries {"type": reason, "request_id": id}.
func InterruptError(code Code, requestID, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.Data = map[string]any{"type": code.Reason(), "request_id": requestID}
	return e
}
