package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The Chat Completions wire format (the subset this agent uses).

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			// Content is a string, or an array of {"type":"text","text"}
			// parts with some providers.
			Content json.RawMessage `json:"content"`
			Refusal string          `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage `json:"usage"`
}

// answer is a completed call.
type answer struct {
	text     string
	usage    chatUsage
	attempts int
}

// maxResponseBytes bounds an upstream answer.
const maxResponseBytes = 8 << 20

// upstreamError is a failed call, worded for the task's status message.
type upstreamError struct {
	status    int // 0 for network errors
	message   string
	attempts  int
	retryable bool
	// cutShort: the step budget ended before the endpoint answered.
	cutShort bool
	// outOfTime: retries stopped because the step budget ran out.
	outOfTime bool
}

func (e *upstreamError) Error() string {
	s := e.message
	if e.attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.attempts)
	}
	if e.outOfTime {
		s += "; no time left in the step budget to retry"
	}
	return s
}

// provider is a model API. call makes one request for the conversation
// msgs (a system message first, when there is one) and returns the answer,
// or an *upstreamError that says whether to retry (and the delay the API
// asked for), or another error that ends the step's attempts.
type provider interface {
	call(ctx context.Context, model string, msgs []chatMessage) (*answer, time.Duration, error)
}

// complete calls the provider, retrying throttling, server and network
// failures with backoff while ctx (the step budget) leaves time.
func (a *Agent) complete(ctx context.Context, model string, msgs []chatMessage) (*answer, error) {
	var last *upstreamError // the last failure the endpoint answered
	for attempt := 1; ; attempt++ {
		start := time.Now()
		res, retryAfter, err := a.provider.call(ctx, model, msgs)
		status := 0
		var ue *upstreamError
		if errors.As(err, &ue) {
			status = ue.status
			ue.attempts = attempt
			if ue.cutShort && last != nil {
				// Out of time while retrying: report why we were retrying.
				last.outOfTime = true
				return nil, last
			}
			last = ue
		}
		a.cfg.Logger.InfoContext(ctx, "llm call", "provider", a.cfg.Provider, "model", model, "attempt", attempt, "status", status,
			"ms", time.Since(start).Milliseconds(), "ok", err == nil)
		if err == nil {
			res.attempts = attempt
			return res, nil
		}
		if ue == nil || !ue.retryable {
			return nil, err
		}
		delay := min(a.cfg.RetryBase<<(attempt-1), maxRetryDelay)
		if retryAfter > delay {
			delay = retryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			ue.outOfTime = true
			return nil, ue
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			ue.outOfTime = true
			return nil, ue
		case <-t.C:
		}
	}
}

// openAI is the OpenAI-compatible Chat Completions provider.
type openAI struct {
	endpoint  string
	key       KeySource
	maxTokens int
	client    *http.Client
}

// call implements provider: one request, with the delay the endpoint asked
// for with Retry-After.
func (o *openAI) call(ctx context.Context, model string, msgs []chatMessage) (*answer, time.Duration, error) {
	body, err := json.Marshal(chatRequest{Model: model, Messages: msgs, MaxTokens: o.maxTokens})
	if err != nil {
		return nil, 0, fmt.Errorf("encode the request: %w", err)
	}
	key, err := o.key(ctx)
	if err != nil {
		// The key source's error may name where the key lives, never the key.
		return nil, 0, fmt.Errorf("could not read the API key: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, raw, err := send(ctx, o.client, req)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, retryAfter(resp.Header.Get("Retry-After")), statusError(resp.StatusCode, raw, key)
	}
	return parseAnswer(raw)
}

// send sends req with client and reads the answer, at most
// maxResponseBytes; its failures are *upstreamError.
func send(ctx context.Context, client *http.Client, req *http.Request) (*http.Response, []byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // without the URL
		}
		if ctx.Err() != nil {
			return nil, nil, &upstreamError{message: "the request was cut short", cutShort: true}
		}
		return nil, nil, &upstreamError{message: "could not reach the model endpoint: " + err.Error(), retryable: true}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, nil, &upstreamError{status: resp.StatusCode, message: "could not read the model's answer: " + err.Error(), retryable: true}
	}
	if len(raw) > maxResponseBytes {
		return nil, nil, &upstreamError{status: resp.StatusCode, message: fmt.Sprintf("the model's answer exceeds %d bytes", maxResponseBytes)}
	}
	return resp, raw, nil
}

// statusError words a non-200 answer. 401 and 403 never quote the
// endpoint's message: some providers echo part of the key in it.
func statusError(status int, raw []byte, key string) *upstreamError {
	e := &upstreamError{status: status, retryable: status == http.StatusTooManyRequests || status >= 500}
	switch {
	case status == http.StatusUnauthorized:
		e.message = fmt.Sprintf("the model endpoint refused the API key (HTTP 401); check %s", EnvAPIKey)
		if key == "" {
			e.message = fmt.Sprintf("the model endpoint requires an API key (HTTP 401); set %s", EnvAPIKey)
		}
		return e
	case status == http.StatusForbidden:
		e.message = "the API key is not allowed to use this model or endpoint (HTTP 403)"
		return e
	case status == http.StatusTooManyRequests:
		e.message = "the model endpoint is rate limiting requests (HTTP 429)"
	case status >= 500:
		e.message = fmt.Sprintf("the model endpoint failed (HTTP %d)", status)
	default:
		e.message = fmt.Sprintf("the model endpoint rejected the request (HTTP %d)", status)
	}
	if detail := upstreamMessage(raw, key); detail != "" {
		e.message += ": " + detail
	}
	return e
}

// upstreamMessage extracts the endpoint's error message (OpenAI's
// {"error":{"message"}} or a plain text body), without the key, shortened.
func upstreamMessage(raw []byte, key string) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	msg := ""
	if json.Unmarshal(raw, &body) == nil && body.Error != nil {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
			msg = obj.Message
		} else {
			_ = json.Unmarshal(body.Error, &msg)
		}
	} else if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		msg = string(raw)
	}
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}

func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

func parseAnswer(raw []byte) (*answer, time.Duration, error) {
	var r chatResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, 0, &upstreamError{status: http.StatusOK, message: "the model endpoint's answer is not Chat Completions JSON"}
	}
	if len(r.Choices) == 0 {
		return nil, 0, &upstreamError{status: http.StatusOK, message: "the model returned no answer (no choices)"}
	}
	c := r.Choices[0]
	text := contentText(c.Message.Content)
	if strings.TrimSpace(text) == "" {
		reason := "an empty answer"
		switch {
		case c.Message.Refusal != "":
			reason = "a refusal: " + c.Message.Refusal
		case c.FinishReason != "":
			reason += " (finish reason " + c.FinishReason + ")"
		}
		return nil, 0, &upstreamError{status: http.StatusOK, message: "the model returned " + reason}
	}
	a := &answer{text: text}
	if r.Usage != nil {
		a.usage = *r.Usage
		if a.usage.TotalTokens == 0 {
			a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
		}
	}
	return a, 0, nil
}

// contentText reads a message content: a string or an array of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
