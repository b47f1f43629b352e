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
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/tracing"
)

// SQS is the part of the SQS client the pipeline uses; *sqs.Client
// implements it.
type SQS interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
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
)

// ChangeDecoder reads one stream record: the task change it makes, nil when
// it is not one webhooks are told about; dynamo.ChangeFromStream.
type ChangeDecoder func(events.DynamoDBEventRecord) (*service.TaskChange, error)

// TraceDecoder reads the X-Ray trace header a stream record's task was
// changed under, "" when none; dynamo.TraceFromStream.
type TraceDecoder func(events.DynamoDBEventRecord) string

// RedriveDecoder reads one stream record: the delivery a redrive queued,
// nil when it is not one; dynamo.RedriveFromStream.
type RedriveDecoder func(events.DynamoDBEventRecord) (*service.Delivery, error)

// Fanout is the push function.
type Fanout struct {
	sqs      SQS
	queueURL string
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
	log = logger.Or(log)
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

// Handle processes a batch of stream records in order. A record that
// cannot be decoded is logged and skipped (it never will decode; retrying
// would stall the shard). When the jobs of a record cannot be enqueued, the
// response names that record, and Lambda retries from it: its jobs may then
// be sent twice, which receivers absorb by their event id.
func (f *Fanout) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	for _, rec := range ev.Records {
		jobs, what, err := f.jobs(rec)
		if err != nil {
			f.log.ErrorContext(ctx, "skipped a stream record that does not decode", "event_id", rec.EventID, "sequence_number", rec.Change.SequenceNumber, "error", err)
			continue
		}
		if len(jobs) == 0 {
			continue
		}
		rctx := ctx
		if f.trace != nil {
			rctx = tracing.WithHeader(ctx, f.trace(rec))
		}
		if err := f.enqueue(rctx, jobs); err != nil {
			f.log.ErrorContext(rctx, "could not enqueue push notifications; the stream will retry", append(what, "error", err)...)
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
			return resp, nil
		}
		f.log.InfoContext(rctx, "push notifications enqueued", append(what, "jobs", len(jobs))...)
	}
	return resp, nil
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
	j, err := notify.DecodeJob(d.Job)
	if err != nil {
		return nil, nil, fmt.Errorf("the redriven delivery %s to config %s: %w", d.EventID(), d.ConfigID, err)
	}
	if j.TaskID != d.TaskID || j.ConfigID != d.ConfigID || j.Version != d.Version {
		return nil, nil, fmt.Errorf("the redriven delivery %s to config %s holds the job of %s to config %s", d.EventID(), d.ConfigID, j.EventID(), j.ConfigID)
	}
	return []notify.Job{j}, []any{"task_id", d.TaskID, "version", d.Version, "config_id", d.ConfigID, "redrive", d.Redrives}, nil
}

// enqueue sends jobs in as few batches as the limits allow, retrying the
// entries SQS refuses.
func (f *Fanout) enqueue(ctx context.Context, jobs []notify.Job) error {
	bodies := make([]string, len(jobs))
	for i, j := range jobs {
		b, err := j.Encode()
		if err != nil {
			return err
		}
		bodies[i] = string(b)
	}
	for start := 0; start < len(bodies); {
		end, size := start, 0
		for end < len(bodies) && end-start < maxBatchEntries && (end == start || size+len(bodies[end]) <= maxBatchBytes) {
			size += len(bodies[end])
			end++
		}
		if err := f.sendBatch(ctx, bodies[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

func (f *Fanout) sendBatch(ctx context.Context, bodies []string) error {
	pending := make(map[string]string, len(bodies))
	for i, b := range bodies {
		pending[strconv.Itoa(i)] = b
	}
	// The delivery joins the trace the jobs were enqueued under: the
	// task's (WithTrace), or the push invocation's.
	var attrs map[string]types.MessageSystemAttributeValue
	if h := tracing.Header(ctx); h != "" {
		attrs = map[string]types.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(h)},
		}
	}
	var last error
	for attempt := 1; attempt <= sendAttempts && len(pending) > 0; attempt++ {
		if attempt > 1 {
			// A backoff paces I/O, as a timeout does: real time.
			if err := clock.Sleep(ctx, clock.System{}, time.Duration(attempt*attempt)*50*time.Millisecond); err != nil {
				return err
			}
		}
		entries := make([]types.SendMessageBatchRequestEntry, 0, len(pending))
		for id, b := range pending {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(b), MessageSystemAttributes: attrs})
		}
		out, err := f.sqs.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(f.queueURL), Entries: entries})
		if err != nil {
			last = fmt.Errorf("SendMessageBatch: %w", err)
			continue
		}
		for _, ok := range out.Successful {
			delete(pending, aws.ToString(ok.Id))
		}
		for _, bad := range out.Failed {
			last = fmt.Errorf("SendMessageBatch refused an entry: %s: %s", aws.ToString(bad.Code), aws.ToString(bad.Message))
			if bad.SenderFault {
				return last // the same entry would be refused again
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("%d of %d jobs not enqueued: %w", len(pending), len(bodies), last)
	}
	return nil
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
	log = logger.Or(log)
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
	ctx = tracing.WithHeader(ctx, m.Attributes[string(types.MessageSystemAttributeNameAWSTraceHeader)])
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
	_, err := d.sqs.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(d.queueURL), ReceiptHandle: aws.String(m.ReceiptHandle), VisibilityTimeout: secs,
	})
	if err != nil {
		log.WarnContext(ctx, "could not schedule the retry; the queue's visibility timeout applies", "error", err)
	}
}

// deadLetter sends the message to the dead-letter queue and reports
// whether it got there (if not, the queue's redrive policy takes it there
// after its last receive).
func (d *Deliver) deadLetter(ctx context.Context, log *slog.Logger, m *events.SQSMessage, reason, detail string) bool {
	attr := func(v string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	attrs := map[string]types.MessageAttributeValue{"reason": attr(reason), "sourceMessageId": attr(m.MessageId)}
	if detail != "" {
		attrs["detail"] = attr(detail)
	}
	_, err := d.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(d.dlqURL), MessageBody: aws.String(m.Body), MessageAttributes: attrs})
	if err != nil {
		log.ErrorContext(ctx, "could not dead-letter a push notification; the queue will retry it", "error", err)
		return false
	}
	metrics.From(ctx).Count(metrics.WebhookDeadLetter)
	log.WarnContext(ctx, "push notification dead-lettered", "reason", reason, "detail", detail)
	return true
}
