package telemetry

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/httpstatus"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// Function is the telemetry of one Lambda function (or of the local
// server): its name, the logger of its summary lines, its metrics sink
// (nil when off) and whether the next invocation is the cold start. Make
// one per process.
type Function struct {
	Name    string
	Log     *slog.Logger
	Metrics *metrics.Sink
	// Tracer records spans inside each invocation's trace (nil: off).
	Tracer *tracing.Tracer
	Clock  clock.Clock
	warm   atomic.Bool
}

// NewFunction returns the telemetry of function name, logging summary
// lines on log (nil: none) and metrics on sink (nil: off).
func NewFunction(name string, log *slog.Logger, sink *metrics.Sink, clk clock.Clock) *Function {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return &Function{Name: name, Log: log, Metrics: sink, Clock: clock.Or(clk)}
}

// NewLogger returns the JSON logger every binary uses, at level: each line
// carries the fields of its invocation and never a secret (Handler).
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(NewHandler(newJSONHandler(w, level)))
}

// ForLambda is the telemetry of a Lambda function from its environment:
// JSON summary lines on logOut at A2A_LOG_LEVEL (they are Info lines), EMF
// metrics on metricsOut as A2A_METRICS says. An invalid A2A_METRICS turns
// metrics off, with a warning.
func ForLambda(name string, getenv func(string) string, metricsOut, logOut io.Writer) *Function {
	level := slog.LevelInfo
	if v := getenv("A2A_LOG_LEVEL"); v != "" {
		_ = level.UnmarshalText([]byte(v))
	}
	log := NewLogger(logOut, level)
	sink, err := metrics.FromEnv(getenv, metricsOut, nil)
	if err != nil {
		log.Warn("metrics are off", "error", err.Error())
	}
	f := NewFunction(name, log, sink, nil)
	// Spans go to the X-Ray daemon Lambda runs when Tracing is Active
	// (A2A_TRACING=off turns them off).
	if addr := getenv("AWS_XRAY_DAEMON_ADDRESS"); addr != "" && getenv("A2A_TRACING") != "off" {
		if d, err := tracing.NewXRayDaemon(addr); err == nil {
			f.Tracer = tracing.New(d, nil)
		}
	}
	return f
}

// Context returns ctx carrying the function's metrics sink and tracer, for
// each invocation and for the constructors that wire them (the DynamoDB
// store's capacity callback).
func (f *Function) Context(ctx context.Context) context.Context {
	return tracing.NewContext(metrics.NewContext(ctx, f.Metrics), f.Tracer)
}

// begin starts an invocation: a field bag with the function's name and the
// cold start flag, and the metrics sink and tracer (Context), in ctx.
func (f *Function) begin(ctx context.Context) (context.Context, time.Time) {
	ctx = f.Context(logfields.WithFields(ctx))
	logfields.AddAttrs(ctx, slog.String(logfields.FieldFunction, f.Name), slog.Bool(logfields.FieldColdStart, !f.warm.Swap(true)))
	return ctx, f.Clock.Now()
}

// end writes the summary line (with the duration and err) and the
// invocation's metrics: the request latency by method when a method is
// known, and by route (API Gateway's route key) unless the request was a
// blocking send, which lasts as long as the agent's step: the latency
// alarms watch RouteLatency, which only the service's own work moves. The
// line goes to the logger's handler directly: what slog.Logger adds on the
// way (the caller's program counter, which no line prints) costs more than
// the rest of the line on a small request.
func (f *Function) end(ctx context.Context, start time.Time, err error, route string, attrs ...slog.Attr) {
	f.endWith(ctx, start, err, route, nil, attrs...)
}

// endWith is end with fields: the function's own, for a request without a
// field bag (nil for one with), written after the duration as the bag's
// are.
func (f *Function) endWith(ctx context.Context, start time.Time, err error, route string, fields []slog.Attr, attrs ...slog.Attr) {
	now := f.Clock.Now()
	ms := durationMS(start, now)
	if f.Metrics != nil { // the lookups walk the context: not without metrics
		if m := logfields.Get(ctx, logfields.FieldMethod); m != "" {
			f.Metrics.Add(metrics.RequestLatency, metrics.UnitMilliseconds, ms, metrics.DimMethod, m)
		}
		if route != "" && logfields.Get(ctx, logfields.FieldBlocking) != "true" {
			f.Metrics.Add(metrics.RouteLatency, metrics.UnitMilliseconds, ms, metrics.DimRoute, route)
		}
	}
	level, msg := slog.LevelInfo, "invocation"
	if err != nil {
		level, msg = slog.LevelError, "invocation failed"
	}
	if f.Log.Enabled(ctx, level) {
		duration := [1]slog.Attr{slog.Float64(logfields.FieldDurationMS, ms)}
		var failure []slog.Attr
		if err != nil {
			failure = []slog.Attr{slog.String("error", err.Error())}
		}
		if h, ok := f.Log.Handler().(*Handler); ok {
			// Its parts, without a record to gather them in first.
			_ = h.handleParts(ctx, now, level, msg, attrs, duration[:], failure, fields)
		} else {
			_ = handleRecord(ctx, f.Log.Handler(), now, level, msg, 0, attrs, duration[:], failure, fields)
		}
	}
	if ferr := f.Metrics.Flush(); ferr != nil {
		f.Log.WarnContext(ctx, "could not write metrics", "error", ferr.Error())
	}
}

// Wrap returns a Lambda handler that runs next inside an invocation's
// telemetry: describe adds fields from the event before next runs (nil:
// none); the summary line follows next.
func Wrap[In, Out any](f *Function, next func(context.Context, In) (Out, error), describe func(context.Context, In)) func(context.Context, In) (Out, error) {
	return func(ctx context.Context, in In) (Out, error) {
		ctx, start := f.begin(ctx)
		if describe != nil {
			describe(ctx, in)
		}
		out, err := next(ctx, in)
		f.end(ctx, start, err, "")
		return out, err
	}
}

// HTTP wraps an HTTP API function: its fields carry the API Gateway
// request id, and its summary line the route and status.
func HTTP(f *Function, next func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		ctx, start := f.begin(ctx)
		logfields.AddAttrs(ctx, slog.String(logfields.FieldAPIRequestID, ev.RequestContext.RequestID))
		resp, err := next(ctx, ev)
		f.end(ctx, start, err, ev.RouteKey, slog.String("route", ev.RouteKey), slog.Int("status", resp.StatusCode))
		return resp, err
	}
}

// Background runs fn, work of the local server that no request waits for
// (a task's step, a sweep), with the metrics an invocation of a function
// doing it would write: fn's context carries the sink and the tracer
// (Context), and what fn recorded is written when it returns, not with a
// later request's lines (or never). A nil f runs fn as it is.
func Background[T any](ctx context.Context, f *Function, fn func(context.Context) (T, error)) (T, error) {
	if f == nil {
		return fn(ctx)
	}
	out, err := fn(f.Context(ctx))
	if ferr := f.Metrics.Flush(); ferr != nil {
		f.Log.WarnContext(ctx, "could not write metrics", "error", ferr.Error())
	}
	return out, err
}

// Middleware gives each request of the local server the same telemetry as
// an HTTP function's invocation (without Lambda's ids). A request for one
// of the plain paths, documents whose handlers add no fields (the agent
// card), gets the same summary line without a field bag, nor the copy of
// the request that carries one (a tenth of the cost of serving the card):
// the line names the function itself, and a GET's line is written from
// its parts encoded once (plainLine). An answer whose length the handler
// set reaches the client before its summary line is written. Answers are
// dated by f's clock, formatted once a second (answer).
func Middleware(f *Function, next http.Handler, plain ...string) http.Handler {
	// The routes of the plain paths' GETs and their lines' constant
	// parts, made once: a line's route is otherwise a new string at every
	// request, and its attributes redacted and escaped again.
	gets := make([]string, len(plain))
	lines := make([]*plainLine, len(plain))
	for i, p := range plain {
		gets[i] = http.MethodGet + " " + p
		lines[i] = f.plainLine(gets[i])
	}
	dates := &dateCache{clock: f.Clock}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := slices.Index(plain, r.URL.Path)
		plainPath, route := i >= 0, ""
		if plainPath && r.Method == http.MethodGet {
			route = gets[i]
		}
		ctx, start := r.Context(), time.Time{}
		if plainPath {
			start = f.Clock.Now()
		} else {
			ctx, start = f.begin(ctx)
			r = r.WithContext(ctx)
		}
		if plainPath {
			// A document is answered at once: dated by the clock read
			// already (a handler's own Date replaces it).
			w.Header()["Date"] = dates.header(start.Unix())
		}
		sw := &answer{Writer: httpstatus.Writer{ResponseWriter: w}, dates: dates}
		next.ServeHTTP(sw, r)
		sendNow(w, sw.Status())
		if route != "" && lines[i].write(ctx, start, sw.Status()) {
			return
		}
		f.endRequest(ctx, start, r, route, sw.Status(), plainPath)
	})
}

// sendNow flushes an answer of a known length, written with status, to
// its client: net/http would send it only once the handler returns. Not
// one without a Content-Length, which a flush would turn into a chunked
// one (net/http sets the length of a small answer itself when the handler
// returns), nor one the handler wrote nothing of.
func sendNow(w http.ResponseWriter, status int) {
	if status == 0 || w.Header()["Content-Length"] == nil {
		return
	}
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

// endRequest writes the summary line of a request answered with status
// (0: nothing written, which net/http answers 200) on route ("": the
// request's method and path); a plain path's line carries the function's
// own fields. Not in Middleware's handler: its frame would sit under every
// handler's, and the deepest of them (net/http writing a response's
// headers) would outgrow a connection's first 8 KB of stack.
func (f *Function) endRequest(ctx context.Context, start time.Time, r *http.Request, route string, status int, plainPath bool) {
	status = answered(status)
	if route == "" {
		route = r.Method + " " + r.URL.Path
	}
	var fields []slog.Attr
	if plainPath {
		fields = []slog.Attr{slog.String(logfields.FieldFunction, f.Name), slog.Bool(logfields.FieldColdStart, !f.warm.Swap(true))}
	}
	// No route metric: a path holds task ids, and the local server has
	// no route keys (nor alarms).
	f.endWith(ctx, start, nil, "", fields, slog.String("route", route), slog.Int("status", status))
}

// plainLine writes the summary line of a plain path's GET, the line
// endRequest writes for it, byte for byte, from its constant parts
// encoded once: the message, the route and the function's name, each
// redacted and escaped as the line's attributes are. Only the time, the
// status, the duration and the cold start are written per request (half
// the cost of the line the general way). It writes only what the JSON
// logger of NewLogger writes itself, for a function without metrics, and
// a request without an invocation's or a trace's fields or a field bag;
// the rest goes the general way.
type plainLine struct {
	f *Function
	h *Handler
	j *jsonHandler
	// msg is the message redacted; route and function are the attributes
	// encoded, each with its leading comma.
	msg             string
	route, function []byte
}

// plainLine returns the line of route (a method and a path), or nil when
// f's lines go the general way: another logger, or metrics on.
func (f *Function) plainLine(route string) *plainLine {
	h, ok := f.Log.Handler().(*Handler)
	if !ok || f.Metrics != nil {
		return nil
	}
	j, ok := h.next.(*jsonHandler)
	if !ok {
		return nil
	}
	p := &plainLine{f: f, h: h, j: j, msg: h.redactString("invocation")}
	var okRoute, okFunction bool
	p.route, okRoute = h.appendRedacted(nil, slog.String("route", route))
	p.function, okFunction = h.appendRedacted(nil, slog.String(logfields.FieldFunction, f.Name))
	if !okRoute || !okFunction {
		return nil
	}
	return p
}

// write writes the line of a request started at start and answered with
// status (0: 200) in ctx, and reports false, having written nothing and
// left the cold start as it was, when the line must go the general way.
func (p *plainLine) write(ctx context.Context, start time.Time, status int) bool {
	if p == nil || p.f.Metrics != nil || p.f.Log.Handler() != p.h {
		return false
	}
	f := p.f
	if !f.Log.Enabled(ctx, slog.LevelInfo) {
		f.warm.Store(true)
		return true
	}
	var room [2]slog.Attr
	if len(invocationAttrs(ctx, room[:0])) > 0 || logfields.HasFields(ctx) {
		return false
	}
	now := f.Clock.Now()
	buf := lineBuffers.Get()
	b, ok := appendHead(append(*buf, '{'), now, slog.LevelInfo, p.msg, p.j.attrs)
	if !ok {
		lineBuffers.Put(buf, b)
		return false
	}
	b = append(b, p.route...)
	b = strconv.AppendInt(append(b, `,"status":`...), int64(answered(status)), 10)
	b = jsonw.Float(append(b, `,"duration_ms":`...), durationMS(start, now))
	b = append(b, p.function...)
	b = strconv.AppendBool(append(b, `,"cold_start":`...), !f.warm.Swap(true))
	_, _ = p.j.out.Write(append(b, '}', '\n'))
	lineBuffers.Put(buf, b)
	return true
}

// answered is the status a request was answered with: status, or 200 when
// the handler wrote nothing (net/http's answer then).
func answered(status int) int {
	if status == 0 {
		return http.StatusOK
	}
	return status
}

// durationMS is a summary line's duration_ms: from start to now in
// milliseconds, to the microsecond.
func durationMS(start, now time.Time) float64 {
	return float64(now.Sub(start).Microseconds()) / 1000
}
