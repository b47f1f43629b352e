// Package serverless is the push notification pipeline of the Lambda
// deployment: Fanout turns the task table's stream into delivery jobs on an
// SQS queue (the push function), Deliver delivers them (the deliver
// function), retrying through the message's visibility timeout and
// dead-lettering what cannot be delivered.
//
//	table stream ──► Fanout ──► delivery queue ──► Deliver ──► webhook
//	                                 │ (redrive after maxReceiveCount)
//	                                 └──────────► dead-letter queue ◄── Deliver (permanent failures)
//
// Both report partial batch failures (ReportBatchItemFailures), so one bad
// record or message never makes Lambda retry the whole batch.
package serverless

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// SQS is the part of SQS the pipeline calls; *sqscall.Client implements
// it. A refusal of SQS is an *awscall.Error.
type SQS interface {
	SendMessage(ctx context.Context, queueURL string, m sqscall.Message) (messageID string, err error)
	SendMessageBatch(ctx context.Context, queueURL string, batch []sqscall.Message) (sqscall.BatchResult, error)
	ChangeMessageVisibility(ctx context.Context, queueURL, receiptHandle string, seconds int32) error
}

// Limits of SQS.
const (
	maxBatchEntries = 10
	// maxBatchBytes is the payload limit of one SendMessageBatch (256 KiB).
	maxBatchBytes = 256 << 10
	// maxVisibility is the longest visibility timeout (12 hours).
	maxVisibility = 12 * time.Hour
	// sendAttempts bounds the attempts to enqueue the jobs of one record.
	sendAttempts = 3
	// awsTraceHeader is the message system attribute that carries a
	// message's X-Ray trace header.
	awsTraceHeader = "AWSTraceHeader"
)

// ChangeDecoder reads one stream record: the task change it makes, nil when
// it is not one webhooks are told about; dynamo.ChangeFromStream.
type ChangeDecoder func(events.DynamoDBEventRecord) (*store.TaskChange, error)

// TraceDecoder reads the X-Ray trace header a stream record's task was
// changed under, "" when none; dynamo.TraceFromStream.
type TraceDecoder func(events.DynamoDBEventRecord) string

// RedriveDecoder reads one stream record: the delivery a redrive queued,
// nil when it is not one; dynamo.RedriveFromStream.
type RedriveDecoder func(events.DynamoDBEventRecord) (*store.Delivery, error)

// Fanout is the push function.
type Fanout struct {
	sqs      SQS
	queueURL string
	dlqURL   string
	decode   ChangeDecoder
	trace    TraceDecoder
	redrive  RedriveDecoder
	log      *slog.Logger
}

// NewFanout returns the push function's handler: it sends the jobs of the
// changes decode finds to the queue at queueURL.
func NewFanout(client SQS, queueURL string, decode ChangeDecoder, log *slog.Logger) (*Fanout, error) {
	if client == nil || queueURL == "" || decode == nil {
		return nil, errors.New("push fanout: an SQS client, the delivery queue URL and a change decoder are required")
	}
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return &Fanout{sqs: client, queueURL: queueURL, decode: decode, log: log}, nil
}

// WithTrace makes each record's jobs carry the trace header trace reads
// from it (the task's trace), and enqueues them under it, so that the
// delivery joins the trace of the task rather than the push invocation's.
// A record without one keeps the invocation's. It returns f.
func (f *Fanout) WithTrace(trace TraceDecoder) *Fanout {
	f.trace = trace
	return f
}

// WithRedrive makes the function enqueue again the job of every delivery
// a redrive queued (tasks/deliveries/redrive), as redrive reads them from
// the stream. It returns f.
func (f *Fanout) WithRedrive(redrive RedriveDecoder) *Fanout {
	f.redrive = redrive
	return f
}

// WithDeadLetter sends the stream records that can never become jobs to
// the SQS queue at url, each with its reason (see Handle); without it they
// are only logged. It returns f.
func (f *Fanout) WithDeadLetter(url string) *Fanout {
	f.dlqURL = url
	return f
}

// Reasons a stream record is dead-lettered (the message's reason
// attribute).
const (
	// ReasonUndecodable: the record is not a task change (or a redriven
	// delivery) this version can read.
	ReasonUndecodable = "undecodable"
	// ReasonRefused: SQS refused a job of the record for a reason of the
	// message itself (SenderFault), which it would refuse again.
	ReasonRefused = "refused by SQS"
)

// Handle processes a batch of stream records in order, so that a shard
// never stalls on a record that can never become jobs: a record that does
// not decode, and a job SQS refuses for good (a SenderFault of the message
// itself, not of the queue or the caller), go to the dead-letter queue
// with their reason, and the batch goes on. When the jobs of a record
// cannot be enqueued for now (SQS throttled, failed or could not be
// reached, or the dead-letter queue could not take a record), the response
// names that record, and Lambda retries from it (as often as the event
// source mapping allows): its jobs may then be sent twice, which receivers
// absorb by their event id.
func (f *Fanout) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	for i := range ev.Records {
		if err := f.handle(ctx, &ev.Records[i]); err != nil {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: ev.Records[i].Change.SequenceNumber})
			return resp, nil
		}
	}
	return resp, nil
}

// handle turns one record into jobs on the queue, or into dead letters; an
// error means the record is to be tried again.
func (f *Fanout) handle(ctx context.Context, rec *events.DynamoDBEventRecord) error {
	jobs, what, err := f.jobs(*rec)
	if err != nil {
		return f.deadLetter(ctx, rec, deadLetter{Reason: ReasonUndecodable, Detail: err.Error()})
	}
	if len(jobs) == 0 {
		return nil
	}
	if f.trace != nil {
		ctx = tracing.WithHeader(ctx, f.trace(*rec))
	}
	refused, err := f.enqueue(ctx, jobs)
	if err != nil {
		f.log.ErrorContext(ctx, "could not enqueue push notifications; the stream will retry", append(what, "error", err)...)
		return err
	}
	for _, r := range refused {
		dl := deadLetter{Reason: ReasonRefused, Detail: r.code + ": " + r.message, TaskID: r.job.TaskID, ConfigID: r.job.ConfigID, Version: r.job.Version, Job: r.body}
		if err := f.deadLetter(ctx, rec, dl); err != nil {
			return err
		}
	}
	f.log.InfoContext(ctx, "push notifications enqueued", append(what, "jobs", len(jobs)-len(refused), "dead_lettered", len(refused))...)
	return nil
}

// jobs are the delivery jobs of one stream record, with log attributes
// that say what they are: those of a task change, or the job of a
// redriven delivery.
func (f *Fanout) jobs(rec events.DynamoDBEventRecord) ([]notify.Job, []any, error) {
	change, err := f.decode(rec)
	if err != nil {
		return nil, nil, err
	}
	if change != nil {
		return notify.Jobs(*change), []any{"task_id", change.Task.ID, "version", change.Version}, nil
	}
	if f.redrive == nil {
		return nil, nil, nil
	}
	d, err := f.redrive(rec)
	if err != nil || d == nil {
		return nil, nil, err
	}
	j, err := notify.DeliveryJob(*d)
	if err != nil {
		return nil, nil, err
	}
	return []notify.Job{j}, []any{"task_id", d.TaskID, "version", d.Version, "config_id", d.ConfigID, "redrive", d.Redrives}, nil
}

// deadLetter is the body of a dead-lettered record: why, and what of it
// there is to replay (Job, the refused job's queue message), or to look up
// (the record's place in the stream and the item's key).
type deadLetter struct {
	Reason         string                                   `json:"reason"`
	Detail         string                                   `json:"detail,omitempty"`
	EventID        string                                   `json:"eventId"`
	EventSourceArn string                                   `json:"eventSourceArn,omitempty"`
	SequenceNumber string                                   `json:"sequenceNumber"`
	Keys           map[string]events.DynamoDBAttributeValue `json:"keys,omitempty"`
	TaskID         string                                   `json:"taskId,omitempty"`
	ConfigID       string                                   `json:"configId,omitempty"`
	Version        int64                                    `json:"version,omitempty"`
	Job            string                                   `json:"job,omitempty"`
}

// maxDetail bounds the detail attribute of a dead letter.
const maxDetail = 1024

// deadLetter sends one dead letter of rec to the dead-letter queue (or,
// without one, only logs it). It fails only when the queue could not take
// it for now; a dead letter SQS refuses for good is logged, so that the
// shard moves on.
func (f *Fanout) deadLetter(ctx context.Context, rec *events.DynamoDBEventRecord, dl deadLetter) error {
	dl.EventID, dl.EventSourceArn, dl.SequenceNumber, dl.Keys = rec.EventID, rec.EventSourceArn, rec.Change.SequenceNumber, rec.Change.Keys
	log := f.log.With("reason", dl.Reason, "detail", dl.Detail, "event_id", dl.EventID, "sequence_number", dl.SequenceNumber)
	if dl.TaskID != "" {
		log = log.With("task_id", dl.TaskID, "config_id", dl.ConfigID, "version", dl.Version)
	}
	if f.dlqURL == "" {
		log.ErrorContext(ctx, "skipped a stream record that can never become jobs (no dead-letter queue)")
		return nil
	}
	body, err := json.Marshal(dl)
	if err == nil && len(body) > maxBatchBytes {
		dl.Job = "" // the refused job's key is still there
		body, err = json.Marshal(dl)
	}
	if err != nil {
		return fmt.Errorf("encode a dead letter: %w", err)
	}
	attrs := map[string]sqscall.Attribute{"reason": textAttr(dl.Reason), "sequenceNumber": textAttr(dl.SequenceNumber)}
	if dl.Detail != "" {
		attrs["detail"] = textAttr(truncate(dl.Detail, maxDetail))
	}
	_, err = f.sqs.SendMessage(ctx, f.dlqURL, sqscall.Message{Body: SQSText(string(body)), Attributes: attrs})
	if code, refused := refusedForGood(err); refused {
		log.ErrorContext(ctx, "SQS refused the dead letter of a stream record; skipped it", "code", code, "error", err)
		return nil
	}
	if err != nil {
		log.ErrorContext(ctx, "could not dead-letter a stream record; the stream will retry", "error", err)
		return fmt.Errorf("dead-letter: %w", err)
	}
	log.WarnContext(ctx, "stream record dead-lettered")
	return nil
}

// textAttr is a String message attribute of v, escaped for SQS.
func textAttr(v string) sqscall.Attribute {
	return sqscall.String(SQSText(v))
}

// truncate shortens s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// queued is a job on its way to the queue: its message body, escaped for
// SQS.
type queued struct {
	job  notify.Job
	body string
}

// refusal is a job SQS refused for good.
type refusal struct {
	queued
	code, message string
}

// enqueue sends jobs in as few batches as the limits allow, retrying the
// entries SQS fails for now. It returns the jobs SQS refused for good.
func (f *Fanout) enqueue(ctx context.Context, jobs []notify.Job) ([]refusal, error) {
	all := make([]queued, len(jobs))
	for i, j := range jobs {
		b, err := j.Encode()
		if err != nil {
			return nil, err
		}
		all[i] = queued{job: j, body: SQSText(string(b))}
	}
	var refused []refusal
	for start := 0; start < len(all); {
		end, size := start, 0
		for end < len(all) && end-start < maxBatchEntries && (end == start || size+len(all[end].body) <= maxBatchBytes) {
			size += len(all[end].body)
			end++
		}
		r, err := f.sendBatch(ctx, all[start:end])
		if err != nil {
			return nil, err
		}
		refused = append(refused, r...)
		start = end
	}
	return refused, nil
}

// sendBatch sends one batch of jobs. A job SQS refuses for good, in the
// batch's answer or (when SQS refuses the whole batch) sent on its own, is
// returned; the others are tried up to sendAttempts times.
func (f *Fanout) sendBatch(ctx context.Context, batch []queued) ([]refusal, error) {
	pending := make(map[string]queued, len(batch))
	for i, q := range batch {
		pending[strconv.Itoa(i)] = q
	}
	// The delivery joins the trace the jobs were enqueued under: the
	// task's (WithTrace), or the push invocation's.
	var attrs map[string]sqscall.Attribute
	if h := tracing.Header(ctx); h != "" {
		attrs = map[string]sqscall.Attribute{awsTraceHeader: sqscall.String(h)}
	}
	var (
		refused []refusal
		last    error
	)
	for attempt := 1; attempt <= sendAttempts && len(pending) > 0; attempt++ {
		if attempt > 1 {
			// A backoff paces I/O, as a timeout does: real time.
			if err := clock.Sleep(ctx, clock.System{}, time.Duration(attempt*attempt)*50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		entries := make([]sqscall.Message, 0, len(pending))
		for id, q := range pending {
			entries = append(entries, sqscall.Message{ID: id, Body: q.body, SystemAttributes: attrs})
		}
		out, err := f.sqs.SendMessageBatch(ctx, f.queueURL, entries)
		if _, whole := refusedForGood(err); whole {
			// One entry may be the cause (too large, say): each is sent on
			// its own to find which.
			r, err := f.sendEach(ctx, pending, attrs)
			refused = append(refused, r...)
			last = err
			continue
		}
		if err != nil {
			last = fmt.Errorf("SendMessageBatch: %w", err)
			continue
		}
		for _, ok := range out.Successful {
			delete(pending, ok.ID)
		}
		for _, bad := range out.Failed {
			id, code, msg := bad.ID, bad.Code, bad.Message
			if q, ok := pending[id]; ok && bad.SenderFault && !outage(code) {
				refused = append(refused, refusal{queued: q, code: code, message: msg})
				delete(pending, id)
				continue
			}
			last = fmt.Errorf("SendMessageBatch refused an entry: %s: %s", code, msg)
		}
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("%d of %d jobs not enqueued: %w", len(pending), len(batch), last)
	}
	return refused, nil
}

// sendEach sends each pending job on its own, removing those sent or
// refused for good (returned) from pending.
func (f *Fanout) sendEach(ctx context.Context, pending map[string]queued, attrs map[string]sqscall.Attribute) ([]refusal, error) {
	var (
		refused []refusal
		last    error
	)
	for id, q := range pending {
		_, err := f.sqs.SendMessage(ctx, f.queueURL, sqscall.Message{Body: q.body, SystemAttributes: attrs})
		if code, ok := refusedForGood(err); ok {
			refused = append(refused, refusal{queued: q, code: code, message: err.Error()})
			delete(pending, id)
			continue
		}
		if err != nil {
			last = fmt.Errorf("SendMessage: %w", err)
			continue
		}
		delete(pending, id)
	}
	return refused, last
}

// refusedForGood reports whether SQS refused a request for a reason of the
// message itself, which the same request would meet again (its error code
// returned): an error of the sender (HTTP 4xx), but not one of the queue
// or the caller (see outage).
func refusedForGood(err error) (string, bool) {
	var e *awscall.Error
	if !errors.As(err, &e) {
		return "", false
	}
	sender := e.StatusCode >= 400 && e.StatusCode < 500
	return e.Code, sender && !outage(e.Code)
}

// outage reports whether an SQS error code says the queue, its key or the
// caller cannot take messages for now (throttled, denied, missing, its KMS
// key unusable), which no message is to blame for: the record is tried
// again rather than dead-lettered.
func outage(code string) bool {
	switch code {
	case "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "NonExistentQueue", "RequestThrottled", "OverLimit",
		"InvalidSecurity", "InvalidClientTokenId", "UnrecognizedClientException", "ExpiredToken", "RequestExpired", "SignatureDoesNotMatch", "MissingAuthenticationToken":
		return true
	}
	return strings.HasPrefix(code, "Kms") || strings.HasPrefix(code, "KMS") || strings.Contains(code, "Throttl") || strings.Contains(code, "AccessDenied")
}

// SQSText returns s with every character that SQS refuses in a message body
// or attribute value written as a JSON escape (\uffff): SQS accepts only
// #x9, #xA, #xD, #x20 to #xD7FF, #xE000 to #xFFFD and #x10000 to #x10FFFF,
// and refuses the whole message otherwise, so that a client's U+FFFF in a
// contextId would stall its stream shard. In a JSON text such characters
// can only be inside strings (encoding/json escapes the control
// characters), where the escape reads back as the same character; bytes
// that are not UTF-8 become \ufffd.
func SQSText(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !sqsAllowed(r) }) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for rest := s; rest != ""; {
		r, n := utf8.DecodeRuneInString(rest)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case sqsAllowed(r):
			b.WriteString(rest[:n])
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		rest = rest[n:]
	}
	return b.String()
}

// sqsAllowed reports whether SQS accepts r in a message.
func sqsAllowed(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// Sender makes one delivery attempt of a job; *notify.Sender implements it.
type Sender interface {
	Send(ctx context.Context, j notify.Job, attempt int) (push.Decision, error)
}

// Deliver is the deliver function.
type Deliver struct {
	sender   Sender
	sqs      SQS
	queueURL string
	dlqURL   string
	log      *slog.Logger
}

// NewDeliver returns the deliver function's handler. queueURL is the
// delivery queue (its messages' visibility is changed to schedule retries);
// dlqURL the dead-letter queue, where jobs that failed for good are sent.
func NewDeliver(sender Sender, client SQS, queueURL, dlqURL string, log *slog.Logger) (*Deliver, error) {
	if sender == nil || client == nil || queueURL == "" || dlqURL == "" {
		return nil, errors.New("push deliver: a sender, an SQS client and the delivery and dead-letter queue URLs are required")
	}
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return &Deliver{sender: sender, sqs: client, queueURL: queueURL, dlqURL: dlqURL, log: log}, nil
}

// Handle delivers the batch's jobs concurrently, so that a hanging webhook
// holds only its own message. A delivered job, a job whose task or config
// is gone and a job that failed for good (sent to the dead-letter queue)
// succeed; a job to retry has its visibility timeout set to the retry delay
// and is reported failed, so SQS hands it out again then.
func (d *Deliver) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	failed := make([]bool, len(ev.Records))
	var wg sync.WaitGroup
	for i := range ev.Records {
		wg.Go(func() { failed[i] = !d.handle(ctx, &ev.Records[i]) })
	}
	wg.Wait()
	var resp events.SQSEventResponse
	for i, f := range failed {
		if f {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
		}
	}
	return resp, nil
}

// handle processes one message and reports whether it is done with. It
// runs under the message's trace header (SQS's AWSTraceHeader, the task's
// trace), whatever trace the invocation is in, so that each webhook POST
// joins its own task's trace.
func (d *Deliver) handle(ctx context.Context, m *events.SQSMessage) bool {
	ctx = tracing.WithHeader(ctx, m.Attributes[awsTraceHeader])
	log := d.log.With("message_id", m.MessageId)
	job, err := notify.DecodeJob([]byte(m.Body))
	if err != nil {
		log.ErrorContext(ctx, "a delivery message is not a job; dead-lettering it", "error", err)
		return d.deadLetter(ctx, log, m, "undecodable", err.Error())
	}
	log = log.With("event_id", job.EventID(), "task_id", job.TaskID, "config_id", job.ConfigID)
	attempt := receiveCount(m)
	decision, err := d.sender.Send(ctx, job, attempt)
	switch {
	case errors.Is(err, notify.ErrGone):
		log.InfoContext(ctx, "push notification dropped: its task or config is gone")
		return true
	case err != nil:
		log.ErrorContext(ctx, "could not prepare a push notification; the queue will retry", "attempt", attempt, "error", err)
		return false
	case decision.Retry:
		metrics.From(ctx).Count(metrics.WebhookRetried)
		d.postpone(ctx, log, m, decision.Delay)
		return false
	case decision.Status.State == push.StateFailed:
		return d.deadLetter(ctx, log, m, "delivery failed", decision.Status.LastError)
	}
	metrics.From(ctx).Count(metrics.WebhookDelivered)
	return true
}

// receiveCount is the message's attempt number (ApproximateReceiveCount).
func receiveCount(m *events.SQSMessage) int {
	n, err := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// postpone makes the message visible again after delay. When that fails
// the queue's own visibility timeout applies.
func (d *Deliver) postpone(ctx context.Context, log *slog.Logger, m *events.SQSMessage, delay time.Duration) {
	secs := int32(min(math.Ceil(delay.Seconds()), maxVisibility.Seconds()))
	err := d.sqs.ChangeMessageVisibility(ctx, d.queueURL, m.ReceiptHandle, secs)
	if err != nil {
		log.WarnContext(ctx, "could not schedule the retry; the queue's visibility timeout applies", "error", err)
	}
}

// deadLetter sends the message to the dead-letter queue and reports
// whether it got there (if not, the queue's redrive policy takes it there
// after its last receive).
func (d *Deliver) deadLetter(ctx context.Context, log *slog.Logger, m *events.SQSMessage, reason, detail string) bool {
	attrs := map[string]sqscall.Attribute{"reason": textAttr(reason), "sourceMessageId": textAttr(m.MessageId)}
	if detail != "" {
		// A webhook's answer may hold anything.
		attrs["detail"] = textAttr(truncate(detail, maxDetail))
	}
	_, err := d.sqs.SendMessage(ctx, d.dlqURL, sqscall.Message{Body: m.Body, Attributes: attrs})
	if err != nil {
		log.ErrorContext(ctx, "could not dead-letter a push notification; the queue will retry it", "error", err)
		return false
	}
	metrics.From(ctx).Count(metrics.WebhookDeadLetter)
	log.WarnContext(ctx, "push notification dead-lettered", "reason", reason, "detail", detail)
	return true
}
