package console

import (
	"encoding/base64"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// view is what a page shows.
type view struct {
	Title, Agent string
	Bearer, Push bool
	CSRF         string
	Error        string
	// Next is where the token prompt goes after signing in.
	Next string

	// The task list.
	States  []a2a.TaskState
	State   string
	Context string
	Tasks   []a2a.Task
	Total   int

	// One task.
	Task       *a2a.Task
	Interrupt  *interrupt
	Deliveries []a2a.Delivery
	// Reply is the agent's direct answer to a message (no task).
	Reply *a2a.Message
}

// interrupt is what an interrupted task asks, as its forms need it.
type interrupt struct {
	RequestID, Type, Text string
	// Questions are the questions of a question interrupt (at least one).
	Questions []string
	// Permission names what a permission interrupt asks to do.
	Permission string
	// URL is where an auth interrupt sends the user (http or https only).
	URL string
	// Plain is set when the task waits without an interrupt the callback
	// methods answer: a message to the task answers it.
	Plain bool
}

// interruptOf is what t waits for, nil when it waits for nothing.
func interruptOf(t *a2a.Task) *interrupt {
	if !t.Status.State.Interrupted() {
		return nil
	}
	in := &interrupt{Text: t.Status.Message.Text()}
	im, ok := a2a.InterruptOf(t.Status.Message)
	if !ok || im.RequestID == "" {
		in.Plain = true
		return in
	}
	in.RequestID, in.Type = im.RequestID, im.Type
	switch im.Type {
	case a2a.InterruptQuestion:
		if qs, ok := im.Details["questions"].([]any); ok {
			for _, q := range qs {
				if m, ok := q.(map[string]any); ok {
					if s, ok := m["question"].(string); ok {
						in.Questions = append(in.Questions, s)
					}
				}
			}
		}
		if len(in.Questions) == 0 {
			in.Questions = []string{in.Text}
		}
	case a2a.InterruptPermission:
		in.Permission, _ = im.Details["permission"].(string)
	case a2a.InterruptAuth:
		if u, _ := im.Details["url"].(string); webURL(u) {
			in.URL = u
		}
	default:
		in.Plain = true
	}
	return in
}

// webURL reports whether u is an http or https URL, the only links the
// console makes of what agents send.
func webURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != ""
}

// maxListed is how many tasks the list shows.
const maxListed = 50

// tasks is the task list, filtered by state and context.
func (h *handler) tasks(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	v := view{Title: "Tasks", CSRF: s.csrf, States: a2a.TaskStates, State: q.Get("state"), Context: strings.TrimSpace(q.Get("context"))}
	size := maxListed
	p := a2a.ListTasksParams{ContextID: v.Context, Status: a2a.TaskState(v.State), PageSize: &size}
	res, err := h.o.Service.ListTasks(r.Context(), s.id.Owner, p)
	if err != nil {
		h.failCall(w, r, err)
		return
	}
	v.Tasks, v.Total = res.Tasks, res.TotalSize
	h.render(w, r, http.StatusOK, pageTasks, v)
}

// pathTask is the task the path's {id} names, or false once the failure
// to read it is answered.
func (h *handler) pathTask(w http.ResponseWriter, r *http.Request, s *session) (*a2a.Task, bool) {
	t, err := h.o.Service.GetTask(r.Context(), s.id.Owner, a2a.TaskQueryParams{ID: r.PathValue("id")})
	if err != nil {
		h.failCall(w, r, err)
		return nil, false
	}
	return t, true
}

// task is one task with its deliveries.
func (h *handler) task(w http.ResponseWriter, r *http.Request, s *session) {
	t, ok := h.pathTask(w, r, s)
	if !ok {
		return
	}
	v := view{Title: "Task " + t.ID, CSRF: s.csrf, Task: t, Interrupt: interruptOf(t)}
	if h.o.Push {
		res, err := h.o.Service.ListDeliveries(r.Context(), s.id.Owner, a2a.ListDeliveriesParams{TaskID: t.ID})
		if err != nil {
			h.failCall(w, r, err)
			return
		}
		v.Deliveries = res.Deliveries
	}
	h.render(w, r, http.StatusOK, pageTask, v)
}

// file serves the bytes of an artifact's file part, as a download.
func (h *handler) file(w http.ResponseWriter, r *http.Request, s *session) {
	t, ok := h.pathTask(w, r, s)
	if !ok {
		return
	}
	n, err := strconv.Atoi(r.PathValue("part"))
	for _, a := range t.Artifacts {
		if a.ArtifactID != r.PathValue("artifact") || err != nil || n < 0 || n >= len(a.Parts) || a.Parts[n].File == nil || a.Parts[n].File.Bytes == "" {
			continue
		}
		f := a.Parts[n].File
		b, derr := base64.StdEncoding.DecodeString(f.Bytes)
		if derr != nil {
			h.fail(w, r, http.StatusUnprocessableEntity, "The file's bytes are not base64.")
			return
		}
		ct := "application/octet-stream"
		if mt, _, perr := mime.ParseMediaType(f.MimeType); perr == nil && f.MimeType != "" {
			ct = mt
		}
		name := f.Name
		if name == "" {
			name = a.ArtifactID
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
		_, _ = w.Write(b)
		return
	}
	h.fail(w, r, http.StatusNotFound, "The task has no such file.")
}

// toTask sends the browser to a task's page after a form.
func toTask(w http.ResponseWriter, r *http.Request, taskID string) {
	http.Redirect(w, r, Path+"tasks/"+url.PathEscape(taskID), http.StatusSeeOther)
}

// send sends a new message, in a context when one is given, with a
// webhook when one is given.
func (h *handler) send(w http.ResponseWriter, r *http.Request, s *session) {
	f := r.PostForm
	text := strings.TrimSpace(f.Get("text"))
	if text == "" {
		h.fail(w, r, http.StatusBadRequest, "Write a message to send.")
		return
	}
	blocking := false
	p := a2a.MessageSendParams{
		Message:       a2a.Message{Role: a2a.RoleUser, MessageID: newID(), ContextID: strings.TrimSpace(f.Get("context")), Parts: []a2a.Part{a2a.TextPart(text)}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
	}
	if hook := strings.TrimSpace(f.Get("webhook")); hook != "" && h.o.Push {
		p.Configuration.PushNotificationConfig = &a2a.PushNotificationConfig{URL: hook}
	}
	res, err := h.o.Service.Send(r.Context(), s.id.Owner, p)
	if err != nil {
		h.failCall(w, r, err)
		return
	}
	if res.Task == nil {
		h.render(w, r, http.StatusOK, pageMessage, view{Title: "The agent's answer", Reply: res.Message})
		return
	}
	toTask(w, r, res.Task.ID)
}

func (h *handler) cancel(w http.ResponseWriter, r *http.Request, s *session) {
	_, err := h.o.Service.CancelTask(r.Context(), s.id.Owner, a2a.TaskIDParams{ID: r.PathValue("id")})
	h.done(w, r, err)
}

func (h *handler) permission(w http.ResponseWriter, r *http.Request, s *session) {
	_, err := h.o.Service.ReplyPermission(r.Context(), s.id.Owner, a2a.PermissionReplyParams{
		RequestID: r.PostForm.Get("requestId"), Reply: r.PostForm.Get("reply")})
	h.done(w, r, err)
}

func (h *handler) answer(w http.ResponseWriter, r *http.Request, s *session) {
	var answers [][]string
	for _, a := range r.PostForm["answer"] {
		answers = append(answers, []string{strings.TrimSpace(a)})
	}
	_, err := h.o.Service.ReplyQuestion(r.Context(), s.id.Owner, a2a.QuestionReplyParams{RequestID: r.PostForm.Get("requestId"), Answers: answers})
	h.done(w, r, err)
}

func (h *handler) decline(w http.ResponseWriter, r *http.Request, s *session) {
	_, err := h.o.Service.RejectQuestion(r.Context(), s.id.Owner, a2a.QuestionRejectParams{RequestID: r.PostForm.Get("requestId")})
	h.done(w, r, err)
}

// reply sends a message to the task (an interrupted task without
// callbacks takes its answer so). The service gives the message the
// task's context.
func (h *handler) reply(w http.ResponseWriter, r *http.Request, s *session) {
	text := strings.TrimSpace(r.PostForm.Get("text"))
	if text == "" {
		h.fail(w, r, http.StatusBadRequest, "Write a reply to send.")
		return
	}
	blocking := false
	_, err := h.o.Service.Send(r.Context(), s.id.Owner, a2a.MessageSendParams{
		Message:       a2a.Message{Role: a2a.RoleUser, MessageID: newID(), TaskID: r.PathValue("id"), Parts: []a2a.Part{a2a.TextPart(text)}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
	})
	h.done(w, r, err)
}

func (h *handler) redrive(w http.ResponseWriter, r *http.Request, s *session) {
	_, err := h.o.Service.RedriveDeliveries(r.Context(), s.id.Owner, a2a.RedriveDeliveriesParams{
		TaskID: r.PathValue("id"), EventID: r.PostForm.Get("eventId"), ConfigID: r.PostForm.Get("configId")})
	h.done(w, r, err)
}

// done answers an action on a task: back to the task, or its error.
func (h *handler) done(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		h.failCall(w, r, err)
		return
	}
	toTask(w, r, r.PathValue("id"))
}

// newID is a new message id.
func newID() string { return uuid.NewString() }
