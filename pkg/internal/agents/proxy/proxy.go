// Package proxy is the a2a-proxy agent: it forwards each task to a remote
// A2A agent and mirrors the remote task here (status messages, artifacts,
// input-required and auth-required turns, the final state), so that an
// existing agent gains durable tasks, polling and push notifications by
// being put behind this host.
//
// The first step sends the task's message to the remote agent without
// blocking and follows the remote task for at most A2A_PROXY_WAIT_MS; if
// the remote task is still working then, the step ends with a Continue
// outcome and the next step, A2A_PROXY_POLL_MS later, follows it again. The
// remote task id is kept in the checkpoint. When the remote task asks for
// input, this task asks the same question; the client's reply is forwarded
// to the remote task (as the same message, or through the remote's
// a2a.interrupt.* callbacks when the reply came through ours).
//
// When this task is canceled while a step runs, the remote task is canceled
// too (best effort). Limits: a cancel between two steps is not forwarded
// (nothing runs then), and every task starts a new remote context.
package proxy

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// Name is the agent's registry name.
const Name = "a2a-proxy"

// Settings.
const (
	EnvURL         = "A2A_PROXY_URL"
	EnvToken       = "A2A_PROXY_TOKEN"
	EnvBinding     = "A2A_PROXY_BINDING"
	EnvProtocol    = "A2A_PROXY_PROTOCOL"
	EnvWaitMS      = "A2A_PROXY_WAIT_MS"
	EnvPollMS      = "A2A_PROXY_POLL_MS"
	EnvName        = "A2A_PROXY_NAME"
	EnvDescription = "A2A_PROXY_DESCRIPTION"
)

// Defaults.
const (
	DefaultWait        = 5 * time.Second
	DefaultPoll        = 2 * time.Second
	DefaultMaxFailures = 5
)

// Config is every setting of the proxy.
type Config struct {
	// URL is the remote agent's base URL or card URL.
	URL string
	// Token is the bearer token sent to the remote agent.
	Token string
	// Binding and Protocol restrict the remote interface ("jsonrpc" or
	// "rest"; "0.3" or "1.0"); empty follows the remote card.
	Binding, Protocol string
	// Wait is how long one step follows the remote task; 0 means
	// DefaultWait.
	Wait time.Duration
	// Poll is the delay before the next step while the remote task works;
	// 0 means DefaultPoll.
	Poll time.Duration
	// PollInterval is the first delay between two reads of the remote task
	// within a step; 0 means the client's default.
	PollInterval time.Duration
	// MaxFailures is how many steps in a row may fail to reach the remote
	// agent before the task fails; 0 means DefaultMaxFailures.
	MaxFailures int
	// Name and Description describe the proxy in its card.
	Name, Description string
	HTTPClient        *http.Client
	Logger            *slog.Logger
}

// Agent is the proxy.
type Agent struct {
	cfg    Config
	remote *client.Client
}

var _ agent.Agent = (*Agent)(nil)

// New builds the proxy from the A2A_PROXY_* settings.
func New(s agent.Settings) (agent.Agent, error) {
	cfg, err := ConfigFrom(s)
	if err != nil {
		return nil, err
	}
	return NewAgent(cfg)
}

// ConfigFrom reads the A2A_PROXY_* settings, reporting every bad or
// missing one by name.
func ConfigFrom(s agent.Settings) (Config, error) {
	var errs []error
	get := func(k string) string { return s.String(k, "") }
	cfg := Config{
		URL: get(EnvURL), Token: get(EnvToken), Binding: get(EnvBinding), Protocol: get(EnvProtocol),
		Name: get(EnvName), Description: get(EnvDescription),
	}
	if cfg.URL == "" {
		errs = append(errs, fmt.Errorf("%s is required: the base URL (or card URL) of the remote A2A agent", EnvURL))
	}
	millis := func(name string) time.Duration {
		n, err := s.Int(name, 0, 1, 3_600_000)
		errs = append(errs, err)
		return time.Duration(n) * time.Millisecond
	}
	cfg.Wait, cfg.Poll = millis(EnvWaitMS), millis(EnvPollMS)
	switch strings.ToLower(cfg.Binding) {
	case "", "jsonrpc", "rest", "http+json":
	default:
		errs = append(errs, fmt.Errorf("%s=%q must be jsonrpc or rest", EnvBinding, cfg.Binding))
	}
	switch cfg.Protocol {
	case "", "0.3", "1.0":
	default:
		errs = append(errs, fmt.Errorf("%s=%q must be 0.3 or 1.0", EnvProtocol, cfg.Protocol))
	}
	return cfg, errors.Join(errs...)
}

// NewAgent builds the proxy from cfg. It does no I/O: the remote card is
// fetched by the first task.
func NewAgent(cfg Config) (*Agent, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s=%q must be an absolute http(s) URL", EnvURL, cfg.URL)
	}
	cfg.Wait = positive.Or(cfg.Wait, DefaultWait)
	cfg.Poll = positive.Or(cfg.Poll, DefaultPoll)
	cfg.MaxFailures = positive.Or(cfg.MaxFailures, DefaultMaxFailures)
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	remote := client.New(cfg.URL, client.Options{Token: cfg.Token, Binding: cfg.Binding, Version: a2a.Version(cfg.Protocol), HTTPClient: cfg.HTTPClient})
	return &Agent{cfg: cfg, remote: remote}, nil
}

// Info implements agent.Agent.
func (a *Agent) Info() agent.Info {
	name, desc := a.cfg.Name, a.cfg.Description
	if name == "" {
		name = "A2A proxy"
	}
	if desc == "" {
		desc = "Forwards every task to a remote A2A agent and mirrors its progress, artifacts and questions, with durable tasks and polling."
	}
	return agent.Info{
		Name: name, Description: desc, Version: "1.0.0",
		InputModes: []string{"text/plain", "application/json"}, OutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{
			ID: "forward", Name: "Forward", Tags: []string{"proxy", "a2a"},
			Description: "Forwards your message to the remote agent and relays its answer.",
		}},
	}
}

// checkpoint is the proxy's state between steps.
type checkpoint struct {
	// RemoteTaskID is the remote task mirrored here.
	RemoteTaskID string `json:"remoteTaskId,omitempty"`
	// Forward is the id of the message of this task still to forward.
	Forward string `json:"forward,omitempty"`
	// Reply is an interrupt reply still to forward (it came through a
	// callback, with no message).
	Reply *agent.Reply `json:"reply,omitempty"`
	// RequestID is the remote interrupt this task's interrupt mirrors.
	RequestID string `json:"requestId,omitempty"`
	// Seen maps each mirrored artifact to a fingerprint of its parts.
	Seen map[string]string `json:"seen,omitempty"`
	// Status is the id of the last remote status message mirrored.
	Status string `json:"status,omitempty"`
	// Failures counts the steps in a row that could not reach the remote.
	Failures int `json:"failures,omitempty"`
}

// Step implements agent.Agent.
func (a *Agent) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	var cp checkpoint
	if err := in.DecodeCheckpoint(&cp); err != nil {
		return agent.Outcome{}, fmt.Errorf("a2a-proxy: %w", err)
	}
	switch {
	case in.Message != nil:
		cp.Forward, cp.Reply = in.Message.MessageID, nil
	case in.Reply != nil:
		cp.Forward, cp.Reply = "", in.Reply
	}
	var current *a2a.Task
	if cp.Forward != "" || cp.Reply != nil {
		res, err := a.forward(ctx, in, &cp)
		if err != nil {
			return a.failure(ctx, err, cp)
		}
		if res.Message != nil { // the remote answered without a task
			return agent.Complete(mirrorMessage(res.Message)), nil
		}
		current = res.Task
		cp.RemoteTaskID = res.Task.ID
		cp.Forward, cp.Reply = "", nil
	}
	if cp.RemoteTaskID == "" {
		return agent.Fail(agent.Text("a2a-proxy: nothing to forward and no remote task to follow")), nil
	}
	return a.follow(ctx, in, emit, cp, current)
}

// forward sends the pending message or reply to the remote agent.
func (a *Agent) forward(ctx context.Context, in agent.StepInput, cp *checkpoint) (*client.SendResult, error) {
	if cp.Reply != nil && cp.RemoteTaskID != "" {
		handled, err := a.forwardCallback(ctx, cp)
		if handled || err != nil {
			if err != nil {
				return nil, err
			}
			t, err := a.remote.GetTask(ctx, a2a.TaskQueryParams{ID: cp.RemoteTaskID, HistoryLength: ptr(0)})
			if err != nil {
				return nil, err
			}
			return &client.SendResult{Task: t}, nil
		}
	}
	msg := a2a.Message{Role: a2a.RoleUser, TaskID: cp.RemoteTaskID}
	if cp.Reply != nil {
		msg.MessageID = in.Task.ID + "-reply-" + cp.Reply.RequestID
		msg.Parts = []a2a.Part{a2a.TextPart(replyText(cp.Reply))}
	} else {
		orig := findMessage(in, cp.Forward)
		if orig == nil {
			return nil, permanent(fmt.Errorf("message %s is not in the task's history", cp.Forward))
		}
		// The same message id makes a retried forward safe: the remote
		// answers with the task the first forward created.
		msg.MessageID, msg.Parts, msg.Metadata, msg.Extensions = orig.MessageID, orig.Parts, orig.Metadata, orig.Extensions
	}
	blocking := false
	return a.remote.SendMessage(ctx, a2a.MessageSendParams{
		Message:       msg,
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
		Metadata:      in.Metadata,
	})
}

// forwardCallback answers the remote interrupt through its callbacks. It
// reports false when the remote has none (the reply then goes as a
// message) or the interrupt has no request id.
func (a *Agent) forwardCallback(ctx context.Context, cp *checkpoint) (bool, error) {
	r := cp.Reply
	if cp.RequestID == "" {
		return false, nil
	}
	var err error
	switch {
	case r.Type == agent.InterruptPermission:
		_, err = a.remote.ReplyPermission(ctx, cp.RequestID, r.Permission, r.Text)
	case r.Rejected:
		_, err = a.remote.RejectQuestion(ctx, cp.RequestID)
	case r.Answers != nil:
		_, err = a.remote.ReplyQuestion(ctx, cp.RequestID, r.Answers)
	default:
		return false, nil
	}
	if errors.Is(err, a2a.ErrMethodNotFound) {
		if r.Rejected {
			return true, permanent(errors.New("the remote agent cannot take a declined question (it has no a2a.interrupt callbacks)"))
		}
		return false, nil
	}
	return err == nil, err
}

// replyText is the plain message form of a reply.
func replyText(r *agent.Reply) string {
	switch {
	case r.Type == agent.InterruptPermission:
		return r.Permission
	case r.Answers != nil:
		var parts []string
		for _, a := range r.Answers {
			parts = append(parts, strings.Join(a, ", "))
		}
		return strings.Join(parts, "; ")
	}
	return r.Text
}

func findMessage(in agent.StepInput, id string) *a2a.Message {
	if in.Message != nil && in.Message.MessageID == id {
		return in.Message
	}
	for i := len(in.Task.History) - 1; i >= 0; i-- {
		if in.Task.History[i].MessageID == id {
			return &in.Task.History[i]
		}
	}
	return nil
}

// follow mirrors the remote task until it settles or this step's share of
// time is over.
func (a *Agent) follow(ctx context.Context, in agent.StepInput, emit agent.Emitter, cp checkpoint, current *a2a.Task) (agent.Outcome, error) {
	waitCtx, cancel := context.WithDeadline(ctx, a.stepDeadline(ctx))
	defer cancel()
	var emitErr error
	final, err := a.remote.Wait(waitCtx, cp.RemoteTaskID, client.WaitOptions{
		Initial:       current,
		MinInterval:   a.cfg.PollInterval,
		HistoryLength: ptr(0),
		OnUpdate: func(u client.Update) {
			if emitErr == nil {
				if emitErr = a.mirror(ctx, emit, &cp, u); emitErr != nil {
					cancel()
				}
			}
		},
	})
	switch {
	case emitErr != nil:
		if errors.Is(emitErr, agent.ErrTaskFinished) {
			a.cancelRemote(cp.RemoteTaskID)
		}
		return agent.Outcome{}, emitErr
	case errors.Is(ctx.Err(), context.Canceled):
		// This task was canceled (or the local server is stopping, when
		// nobody will follow the remote task either).
		a.cancelRemote(cp.RemoteTaskID)
		return agent.Outcome{}, ctx.Err()
	case ctx.Err() != nil:
		return agent.Outcome{}, ctx.Err()
	case err != nil && waitCtx.Err() != nil:
		cp.Failures = 0
		return agent.Continue(a.cfg.Poll, cp), nil // still working: look again later
	case err != nil:
		return a.failure(ctx, err, cp)
	}
	cp.Failures = 0
	return a.settle(final, cp)
}

// stepDeadline is when this step stops following the remote task: after
// Wait, and early enough before the step's own deadline to record the
// outcome.
func (a *Agent) stepDeadline(ctx context.Context) time.Time {
	end := time.Now().Add(a.cfg.Wait)
	if d, ok := ctx.Deadline(); ok {
		margin := min(2*time.Second, time.Until(d)/10)
		if d.Add(-margin).Before(end) {
			end = d.Add(-margin)
		}
	}
	return end
}

// mirror records one change of the remote task here.
func (a *Agent) mirror(ctx context.Context, emit agent.Emitter, cp *checkpoint, u client.Update) error {
	if cp.Seen == nil {
		cp.Seen = map[string]string{}
	}
	for _, ch := range u.Artifacts {
		art := mirrorArtifact(ch.Artifact)
		fp := fingerprint(art.Parts)
		if cp.Seen[art.ArtifactID] == fp {
			continue // mirrored by an earlier step
		}
		opts := agent.ArtifactOptions{}
		if prior := len(art.Parts) - len(ch.NewParts); !ch.New && !ch.Replaced && !ch.Grown && prior > 0 &&
			cp.Seen[art.ArtifactID] == fingerprint(art.Parts[:prior]) {
			opts.Append = true
			art.Parts = ch.NewParts
		}
		if err := emit.Artifact(ctx, art, opts); err != nil {
			return err
		}
		cp.Seen[ch.Artifact.ArtifactID] = fp
	}
	st := u.Task.Status
	if m := st.Message; m != nil && !st.State.Settled() && m.MessageID != cp.Status && len(m.Parts) > 0 {
		if err := emit.Status(ctx, mirrorMessage(m)); err != nil {
			return err
		}
		cp.Status = m.MessageID
	}
	return nil
}

// settle turns the remote task's settled state into this step's outcome.
func (a *Agent) settle(t *a2a.Task, cp checkpoint) (agent.Outcome, error) {
	msg := mirrorMessage(t.Status.Message)
	switch t.Status.State {
	case a2a.TaskStateCompleted:
		return agent.Complete(msg), nil
	case a2a.TaskStateRejected:
		return agent.Reject(orText(msg, "The remote agent rejected the task.")), nil
	case a2a.TaskStateCanceled:
		return agent.Fail(agent.Text("The remote agent canceled the task.")), nil
	case a2a.TaskStateFailed:
		return agent.Fail(orText(msg, "The remote agent failed the task.")), nil
	}
	pending := client.Interrupt(t)
	cp.RequestID = pending.RequestID
	var out agent.Outcome
	switch {
	case t.Status.State == a2a.TaskStateAuthRequired:
		out = agent.RequireAuth(msg, pending.Details)
	case pending.Type == agent.InterruptPermission:
		out = agent.AskPermission(msg, pending.Details)
	default:
		out = agent.AskQuestion(msg, pending.Details)
	}
	return out.WithCheckpoint(cp), nil
}

// failure decides what an error reaching the remote agent does to the
// task: transient failures are retried by a later step, up to MaxFailures
// in a row; anything else fails the task.
func (a *Agent) failure(ctx context.Context, err error, cp checkpoint) (agent.Outcome, error) {
	if ctx.Err() != nil {
		return agent.Outcome{}, ctx.Err()
	}
	a.cfg.Logger.WarnContext(ctx, "a2a-proxy: remote call failed", "remoteTaskId", cp.RemoteTaskID, "error", err.Error())
	var p *permanentError
	if !errors.As(err, &p) && client.Transient(err) {
		cp.Failures++
		if cp.Failures < a.cfg.MaxFailures {
			return agent.Continue(a.cfg.Poll, cp), nil
		}
		return agent.Fail(agent.Text(fmt.Sprintf("Lost contact with the remote agent after %d attempts: %v", cp.Failures, err))), nil
	}
	if errors.Is(err, client.ErrUnauthenticated) {
		return agent.Fail(agent.Text(fmt.Sprintf("The remote agent refused the proxy's credentials (%s): %v", EnvToken, err))), nil
	}
	return agent.Fail(agent.Text("The remote agent could not take the task: " + err.Error())), nil
}

// cancelRemote cancels the remote task, best effort, after this task was
// canceled while a step ran.
func (a *Agent) cancelRemote(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := a.remote.CancelTask(ctx, a2a.TaskIDParams{ID: id}); err != nil {
		a.cfg.Logger.WarnContext(ctx, "a2a-proxy: could not cancel the remote task", "remoteTaskId", id, "error", err.Error())
	}
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// mirrorMessage copies a remote agent message for this task: the parts and
// metadata, without the remote ids and the remote interrupt metadata (this
// task's interrupt gets its own).
func mirrorMessage(m *a2a.Message) *a2a.Message {
	if m == nil || len(m.Parts) == 0 {
		return nil
	}
	c := &a2a.Message{Role: a2a.RoleAgent, Parts: m.Parts, Extensions: m.Extensions}
	if len(m.Metadata) > 0 {
		c.Metadata = a2a.WithoutShared(m.Metadata, a2a.SharedInterrupt)
	}
	return c
}

func mirrorArtifact(a a2a.Artifact) a2a.Artifact {
	return a2a.Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: a.Parts, Metadata: a.Metadata, Extensions: a.Extensions}
}

func orText(m *a2a.Message, text string) *a2a.Message {
	if m != nil {
		return m
	}
	return agent.Text(text)
}

// fingerprint identifies the content of parts.
func fingerprint(parts []a2a.Part) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func ptr[T any](v T) *T { return &v }
