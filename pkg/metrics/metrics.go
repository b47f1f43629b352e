// Package metrics writes CloudWatch Embedded Metric Format (EMF) lines: JSON
// log lines that CloudWatch Logs turns into metrics, with no API call and
// no extra latency. A Sink gathers an invocation's figures in memory and
// Flush writes them, in as few lines as their dimension values allow, at
// the end of the invocation (or request, in the local server).
//
// A nil *Sink is a valid, disabled sink: every method returns at once, so
// metrics cost nothing when A2A_METRICS=off. Code deep in the call stack
// finds the sink of its invocation in its context (NewContext, From).
package metrics

import (
	"context"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// Unit is a CloudWatch metric unit.
type Unit string

// The units the metrics use.
const (
	UnitCount        Unit = "Count"
	UnitMilliseconds Unit = "Milliseconds"
)

// Metric names. Each is emitted with the static dimensions of the
// configuration (Service) plus the dimension named in its comment, and
// rolled up under the static dimensions alone.
const (
	TasksCreated       = "TasksCreated"       // Agent
	TasksCompleted     = "TasksCompleted"     // Agent
	TasksFailed        = "TasksFailed"        // Agent
	TasksCanceled      = "TasksCanceled"      // Agent
	TasksRejected      = "TasksRejected"      // Agent
	TasksInputRequired = "TasksInputRequired" // Agent
	StepDuration       = "StepDuration"       // Agent (ms)
	RequestLatency     = "RequestLatency"     // Method (ms)
	RouteLatency       = "RouteLatency"       // Route (ms): every request but blocking sends
	InterruptsAsked    = "InterruptsAsked"    // Agent
	InterruptsAnswered = "InterruptsAnswered" // Agent
	InterruptsExpired  = "InterruptsExpired"  // Agent
	WebhookDelivered   = "WebhookDelivered"   // none
	WebhookRetried     = "WebhookRetried"     // none
	WebhookDeadLetter  = "WebhookDeadLettered"
	DynamoDBReadUnits  = "DynamoDBReadUnits"  // Operation
	DynamoDBWriteUnits = "DynamoDBWriteUnits" // Operation
	Errors             = "Errors"             // Code
)

// Dimension names; their values come from small fixed sets (agent names,
// method names, DynamoDB operations, error codes), never a task id.
const (
	DimAgent     = "Agent"
	DimMethod    = "Method"
	DimRoute     = "Route"
	DimOperation = "Operation"
	DimCode      = "Code"
)

// maxValues is EMF's limit of values of one metric in one line.
const maxValues = 100

// Config configures a Sink.
type Config struct {
	// Namespace is the CloudWatch namespace of every metric.
	Namespace string
	// Dimensions are static dimensions added to every metric (for example
	// Service=<stack name>).
	Dimensions map[string]string
	// Out receives the EMF lines (stdout in Lambda).
	Out   io.Writer
	Clock clock.Clock
	// Capacity records DynamoDB's capacity units by operation (Capacity):
	// every operation an invocation used past its first takes a line of
	// its own (a line has one value of Operation), for what AWS/DynamoDB's
	// own metrics (free, per table and index) total already. Off,
	// Capacity records nothing.
	Capacity bool
}

// Sink gathers metrics until Flush. It is safe for concurrent use.
type Sink struct {
	cfg    Config
	static []string
	// staticJSON is the static dimensions' members, ready to append.
	staticJSON []byte
	mu         sync.Mutex
	batches    []*batch
	// spare holds flushed batches for reuse: an invocation's metrics then
	// cost no allocation once the function is warm.
	spare []*batch
	buf   []byte
}

// batch is the values of one set of dimension values.
type batch struct {
	dims    []string // name, value, name, value...
	metrics []metric
	line    int // the line of the flush that writes it
}

type metric struct {
	name   string
	unit   Unit
	values []float64
}

// New returns a sink writing to cfg.Out.
func New(cfg Config) *Sink {
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	cfg.Clock = clock.Or(cfg.Clock)
	s := &Sink{cfg: cfg, static: slices.Sorted(maps.Keys(cfg.Dimensions))}
	for _, k := range s.static {
		s.staticJSON = appendMember(s.staticJSON, k)
		s.staticJSON = jsonw.String(s.staticJSON, cfg.Dimensions[k])
		s.staticJSON = append(s.staticJSON, ',')
	}
	return s
}

// Add records one value of metric name with unit, under the dimension
// pairs dims (name, value, name, value...). A pair with an empty value is
// dropped. On a nil sink it does nothing.
func (s *Sink) Add(name string, unit Unit, value float64, dims ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var b *batch
	for _, c := range s.batches {
		if sameDims(c.dims, dims) {
			b = c
			break
		}
	}
	if b == nil {
		if n := len(s.spare); n > 0 {
			b, s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			b = &batch{}
		}
		for i := 0; i+1 < len(dims); i += 2 {
			if dims[i+1] != "" {
				b.dims = append(b.dims, dims[i], dims[i+1])
			}
		}
		s.batches = append(s.batches, b)
	}
	for i := range b.metrics {
		if b.metrics[i].name == name {
			b.metrics[i].values = append(b.metrics[i].values, value)
			return
		}
	}
	if n := len(b.metrics); n < cap(b.metrics) {
		b.metrics = b.metrics[:n+1]
		m := &b.metrics[n]
		m.name, m.unit, m.values = name, unit, append(m.values[:0], value)
		return
	}
	b.metrics = append(b.metrics, metric{name: name, unit: unit, values: []float64{value}})
}

// sameDims reports whether kept (pairs without empty values) is dims
// without its empty values.
func sameDims(kept, dims []string) bool {
	j := 0
	for i := 0; i+1 < len(dims); i += 2 {
		if dims[i+1] == "" {
			continue
		}
		if j+1 >= len(kept) || kept[j] != dims[i] || kept[j+1] != dims[i+1] {
			return false
		}
		j += 2
	}
	return j == len(kept)
}

// Count adds 1 to a count metric.
func (s *Sink) Count(name string, dims ...string) { s.Add(name, UnitCount, 1, dims...) }

// Flush writes what was gathered since the last Flush as EMF lines, in one
// write, and forgets it. On a nil sink it does nothing.
//
// The batches share as few lines as EMF allows (each log line is billed by
// its bytes, and each line repeats its metadata): a line holds one
// directive per batch, and a batch joins the first line whose other
// batches give no dimension it names another value and no metric its
// name (an EMF document has one value per member). A typical invocation
// (tasks by agent, latency by method and by route) is one line.
func (s *Sink) Flush() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.batches) == 0 {
		return nil
	}
	ts := s.cfg.Clock.Now().UnixMilli()
	lines := 0
	for i, b := range s.batches {
		b.line = -1
		for l := 0; l < lines && b.line < 0; l++ {
			if fits(s.batches[:i], l, b) {
				b.line = l
			}
		}
		if b.line < 0 {
			b.line = lines
			lines++
		}
	}
	buf := s.buf[:0]
	for l := range lines {
		for start := 0; ; start += maxValues {
			var more bool
			buf, more = s.appendLine(buf, l, ts, start)
			if !more {
				break
			}
		}
	}
	for _, b := range s.batches {
		b.dims, b.metrics = b.dims[:0], b.metrics[:0]
	}
	s.spare = append(s.spare, s.batches...)
	s.batches = s.batches[:0]
	s.buf = buf
	_, err := s.cfg.Out.Write(buf)
	return err
}

// fits reports whether b can join line l of the batches placed so far.
func fits(placed []*batch, l int, b *batch) bool {
	for _, o := range placed {
		if o.line != l {
			continue
		}
		for i := 0; i+1 < len(b.dims); i += 2 {
			if v, ok := o.dim(b.dims[i]); (ok && v != b.dims[i+1]) || o.has(b.dims[i]) {
				return false
			}
		}
		for _, m := range b.metrics {
			if _, ok := o.dim(m.name); ok || o.has(m.name) {
				return false
			}
		}
	}
	return true
}

// dim returns the value of b's dimension name.
func (b *batch) dim(name string) (string, bool) {
	for i := 0; i+1 < len(b.dims); i += 2 {
		if b.dims[i] == name {
			return b.dims[i+1], true
		}
	}
	return "", false
}

// has reports whether b holds metric name.
func (b *batch) has(name string) bool {
	for _, m := range b.metrics {
		if m.name == name {
			return true
		}
	}
	return false
}

// appendLine appends the EMF line of values [start, start+maxValues) of
// every metric of the batches of line l, and reports whether values
// remain.
func (s *Sink) appendLine(buf []byte, l int, ts int64, start int) ([]byte, bool) {
	buf = append(buf, `{"_aws":{"Timestamp":`...)
	buf = strconv.AppendInt(buf, ts, 10)
	buf = append(buf, `,"CloudWatchMetrics":[`...)
	firstDir := true
	for _, b := range s.batches {
		if b.line != l || !b.valuesFrom(start) {
			continue
		}
		if !firstDir {
			buf = append(buf, ',')
		}
		firstDir = false
		buf = append(buf, `{"Namespace":`...)
		buf = jsonw.String(buf, s.cfg.Namespace)
		// Each metric is published by its dimensions and rolled up under the
		// static dimensions alone (the totals alarms and the dashboard use).
		buf = append(buf, `,"Dimensions":[`...)
		if len(b.dims) > 0 {
			buf = s.appendDimSet(buf, b.dims)
			buf = append(buf, ',')
		}
		buf = s.appendDimSet(buf, nil)
		buf = append(buf, `],"Metrics":[`...)
		first := true
		for _, m := range b.metrics {
			if start >= len(m.values) {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = append(buf, `{"Name":`...)
			buf = jsonw.String(buf, m.name)
			buf = append(buf, `,"Unit":`...)
			buf = jsonw.String(buf, string(m.unit))
			buf = append(buf, '}')
		}
		buf = append(buf, `]}`...)
	}
	buf = append(buf, `]},`...)
	buf = append(buf, s.staticJSON...)
	// Every member is followed by a comma; the last one's becomes the brace.
	more := false
	for _, b := range s.batches {
		if b.line != l || !b.valuesFrom(start) {
			continue
		}
		for i := 0; i+1 < len(b.dims); i += 2 {
			if s.dimWrittenBefore(b, l, start, b.dims[i]) {
				continue // another batch of the line has it, with this value
			}
			buf = appendMember(buf, b.dims[i])
			buf = jsonw.String(buf, b.dims[i+1])
			buf = append(buf, ',')
		}
		for _, m := range b.metrics {
			if start >= len(m.values) {
				continue
			}
			end := min(start+maxValues, len(m.values))
			more = more || end < len(m.values)
			buf = appendMember(buf, m.name)
			if end-start == 1 {
				buf = appendFloat(buf, m.values[start])
			} else {
				buf = append(buf, '[')
				for i, v := range m.values[start:end] {
					if i > 0 {
						buf = append(buf, ',')
					}
					buf = appendFloat(buf, v)
				}
				buf = append(buf, ']')
			}
			buf = append(buf, ',')
		}
	}
	buf[len(buf)-1] = '}'
	return append(buf, '\n'), more
}

// valuesFrom reports whether a metric of b has a value at index start.
func (b *batch) valuesFrom(start int) bool {
	for _, m := range b.metrics {
		if start < len(m.values) {
			return true
		}
	}
	return false
}

// dimWrittenBefore reports whether a batch before b in line l's chunk at
// start wrote dimension name.
func (s *Sink) dimWrittenBefore(b *batch, l, start int, name string) bool {
	for _, o := range s.batches {
		if o == b {
			return false
		}
		if o.line != l || !o.valuesFrom(start) {
			continue
		}
		if _, ok := o.dim(name); ok {
			return true
		}
	}
	return false
}

func (s *Sink) appendDimSet(buf []byte, dims []string) []byte {
	buf = append(buf, '[')
	for i, k := range s.static {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonw.String(buf, k)
	}
	for i := 0; i+1 < len(dims); i += 2 {
		if i > 0 || len(s.static) > 0 {
			buf = append(buf, ',')
		}
		buf = jsonw.String(buf, dims[i])
	}
	return append(buf, ']')
}

// appendMember appends "name":.
func appendMember(buf []byte, name string) []byte {
	buf = jsonw.String(buf, name)
	return append(buf, ':')
}

func appendFloat(buf []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(buf, '0')
	}
	return strconv.AppendFloat(buf, v, 'g', -1, 64)
}

type ctxKey struct{}

// NewContext returns ctx carrying s.
func NewContext(ctx context.Context, s *Sink) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, s)
}

// WithoutSink returns ctx carrying no sink: what is built with it, or runs
// in it, publishes no metrics.
func WithoutSink(ctx context.Context) context.Context {
	return context.WithValue(ctx, ctxKey{}, (*Sink)(nil))
}

// From returns the sink ctx carries, or nil (a disabled sink).
func From(ctx context.Context) *Sink {
	s, _ := ctx.Value(ctxKey{}).(*Sink)
	return s
}

// TaskState counts a task reaching state, by agent: completed, failed,
// canceled, rejected or input-required (other states are not counted).
func TaskState(ctx context.Context, agentName string, state a2a.TaskState) {
	s := From(ctx)
	if s == nil {
		return
	}
	var name string
	switch state {
	case a2a.TaskStateCompleted:
		name = TasksCompleted
	case a2a.TaskStateFailed:
		name = TasksFailed
	case a2a.TaskStateCanceled:
		name = TasksCanceled
	case a2a.TaskStateRejected:
		name = TasksRejected
	case a2a.TaskStateInputRequired:
		name = TasksInputRequired
	default:
		return
	}
	s.Count(name, DimAgent, agentName)
}

// RecordsCapacity reports whether Capacity records anything
// (Config.Capacity).
func (s *Sink) RecordsCapacity() bool { return s != nil && s.cfg.Capacity }

// Capacity records the capacity units one DynamoDB request consumed, by
// operation: read and write when DynamoDB splits them, else all units as
// read or write by the operation's kind. Without Config.Capacity it does
// nothing.
func (s *Sink) Capacity(op string, units, read, write float64) {
	if !s.RecordsCapacity() || units+read+write == 0 {
		return
	}
	if read == 0 && write == 0 {
		switch op {
		case "GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems":
			read = units
		default:
			write = units
		}
	}
	if read > 0 {
		s.Add(DynamoDBReadUnits, UnitCount, read, DimOperation, op)
	}
	if write > 0 {
		s.Add(DynamoDBWriteUnits, UnitCount, write, DimOperation, op)
	}
}
