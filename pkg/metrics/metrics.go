// Package metrics writes CloudWatch Embedded Metric Format (EMF) lines: JSON
// log lines that CloudWatch Logs turns into metrics, with no API call and
// no extra latency. A Sink gathers an invocation's figures in memory and
// Flush writes them, one line per set of dimension values, at the end of
// the invocation (or request, in the local server).
//
// A nil *Sink is a valid, disabled sink: every method returns at once, so
// metrics cost nothing when A2A_METRICS=off. Code deep in the call stack
// finds the sink of its invocation in its context (NewContext, From).
package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
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
}

// Sink gathers metrics until Flush. It is safe for concurrent use.
type Sink struct {
	cfg     Config
	static  []string
	mu      sync.Mutex
	batches map[string]*batch
	order   []string
}

type batch struct {
	dims   map[string]string
	keys   []string
	names  []string
	units  map[string]Unit
	values map[string][]float64
}

// New returns a sink writing to cfg.Out.
func New(cfg Config) *Sink {
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	cfg.Clock = clock.Or(cfg.Clock)
	return &Sink{cfg: cfg, static: slices.Sorted(maps.Keys(cfg.Dimensions)), batches: map[string]*batch{}}
}

// Add records one value of metric name with unit, under the dimension
// pairs dims (name, value, name, value...). A pair with an empty value is
// dropped. On a nil sink it does nothing.
func (s *Sink) Add(name string, unit Unit, value float64, dims ...string) {
	if s == nil {
		return
	}
	var key strings.Builder
	for i := 0; i+1 < len(dims); i += 2 {
		if dims[i+1] == "" {
			continue
		}
		key.WriteString(dims[i])
		key.WriteByte(0)
		key.WriteString(dims[i+1])
		key.WriteByte(0)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.batches[key.String()]
	if !ok {
		b = &batch{dims: map[string]string{}, units: map[string]Unit{}, values: map[string][]float64{}}
		for i := 0; i+1 < len(dims); i += 2 {
			if dims[i+1] != "" {
				b.dims[dims[i]] = dims[i+1]
				b.keys = append(b.keys, dims[i])
			}
		}
		s.batches[key.String()] = b
		s.order = append(s.order, key.String())
	}
	if _, seen := b.units[name]; !seen {
		b.names = append(b.names, name)
		b.units[name] = unit
	}
	b.values[name] = append(b.values[name], value)
}

// Count adds 1 to a count metric.
func (s *Sink) Count(name string, dims ...string) { s.Add(name, UnitCount, 1, dims...) }

// Flush writes what was gathered since the last Flush as EMF lines and
// forgets it. On a nil sink it does nothing.
func (s *Sink) Flush() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	batches, order := s.batches, s.order
	s.batches, s.order = map[string]*batch{}, nil
	s.mu.Unlock()
	if len(order) == 0 {
		return nil
	}
	var buf bytes.Buffer
	ts := s.cfg.Clock.Now().UnixMilli()
	for _, k := range order {
		b := batches[k]
		for start := 0; ; start += maxValues {
			line, more := s.line(b, ts, start)
			buf.Write(line)
			buf.WriteByte('\n')
			if !more {
				break
			}
		}
	}
	_, err := s.cfg.Out.Write(buf.Bytes())
	return err
}

// line encodes values [start, start+maxValues) of every metric of b.
func (s *Sink) line(b *batch, ts int64, start int) ([]byte, bool) {
	// Each metric is published by its dimension and rolled up under the
	// static dimensions alone (the totals alarms and the dashboard use).
	dimSets := [][]string{slices.Clone(s.static)}
	if len(b.keys) > 0 {
		dimSets = [][]string{append(slices.Clone(s.static), b.keys...), slices.Clone(s.static)}
	}
	doc := map[string]any{}
	for k, v := range s.cfg.Dimensions {
		doc[k] = v
	}
	for k, v := range b.dims {
		doc[k] = v
	}
	var defs []metricDef
	more := false
	for _, n := range b.names {
		vs := b.values[n]
		if start >= len(vs) {
			continue
		}
		end := min(start+maxValues, len(vs))
		more = more || end < len(vs)
		defs = append(defs, metricDef{Name: n, Unit: b.units[n]})
		if end-start == 1 {
			doc[n] = vs[start]
		} else {
			doc[n] = vs[start:end]
		}
	}
	doc["_aws"] = awsMeta{Timestamp: ts, CloudWatchMetrics: []directive{{Namespace: s.cfg.Namespace, Dimensions: dimSets, Metrics: defs}}}
	out, _ := json.Marshal(doc)
	return out, more
}

type awsMeta struct {
	Timestamp         int64       `json:"Timestamp"`
	CloudWatchMetrics []directive `json:"CloudWatchMetrics"`
}

type directive struct {
	Namespace  string      `json:"Namespace"`
	Dimensions [][]string  `json:"Dimensions"`
	Metrics    []metricDef `json:"Metrics"`
}

type metricDef struct {
	Name string `json:"Name"`
	Unit Unit   `json:"Unit"`
}

type ctxKey struct{}

// NewContext returns ctx carrying s.
func NewContext(ctx context.Context, s *Sink) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, s)
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

// Capacity records the capacity units one DynamoDB request consumed, by
// operation: read and write when DynamoDB splits them, else all units as
// read or write by the operation's kind.
func (s *Sink) Capacity(op string, units, read, write float64) {
	if s == nil || units+read+write == 0 {
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
