package console

import (
	"cmp"
	"encoding/json"
	"net/url"
	"unicode/utf8"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// page is one kind of console page: its main content, inside the layout,
// and the part of it that the page's script refreshes (data-live; nil for a
// page without one, which is always written whole).
type page struct {
	content, live func(w *htmlWriter, v *view)
}

// The console's pages.
var (
	pageTasks   = page{content: tasksContent, live: tasksLive}
	pageTask    = page{content: taskContent, live: taskLive}
	pageLogin   = page{content: loginContent}
	pageMessage = page{content: messageContent}
	pageError   = page{content: errorContent}
)

// write writes p for v: the whole document, or with live its live part
// alone.
func (p page) write(w *htmlWriter, v *view, live bool) {
	if live && p.live != nil {
		p.live(w, v)
		return
	}
	layout(w, v, p.content)
}

// layout is every page's document around its content.
func layout(w *htmlWriter, v *view, content func(*htmlWriter, *view)) {
	agent := cmp.Or(v.Agent, "a2a-lambda")
	w.markup("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	w.text(v.Title)
	w.markup(" · ")
	w.text(agent)
	w.markup(" console</title>\n" +
		"<link rel=\"stylesheet\" href=\"" + Path + "static/console.css\">\n" +
		"<script src=\"" + Path + "static/console.js\" defer></script>\n" +
		"</head>\n<body>\n<header>\n  <a class=\"brand\" href=\"" + Path + "\">")
	w.text(agent)
	w.markup(" · console</a>\n")
	if v.Bearer && v.CSRF != "" {
		w.markup("  <form method=\"post\" action=\"" + Path + "logout\" class=\"inline\">")
		csrfField(w, v.CSRF)
		w.markup("<button type=\"submit\" class=\"link\">Sign out</button></form>\n")
	}
	w.markup("</header>\n<main>\n")
	content(w, v)
	w.markup("</main>\n</body>\n</html>\n")
}

// csrfField is a form's anti-forgery token.
func csrfField(w *htmlWriter, token string) { hiddenField(w, "csrf", token) }

// hiddenField is a form's hidden value.
func hiddenField(w *htmlWriter, name markup, value string) {
	w.markup(`<input type="hidden" name="`)
	w.markup(name)
	w.markup(`" value="`)
	w.text(value)
	w.markup(`">`)
}

// taskAction opens a form that posts to the action of the task's page.
func taskAction(w *htmlWriter, taskID string, action markup, class markup) {
	w.markup(`<form method="post" action="` + Path + `tasks/`)
	w.segment(taskID)
	w.markup("/")
	w.markup(action)
	w.markup(`"`)
	if class != "" {
		w.markup(` class="`)
		w.markup(class)
		w.markup(`"`)
	}
	w.markup(">")
}

// state is a task's state, styled.
func state(w *htmlWriter, s a2a.TaskState) {
	w.markup(`<span class="state state-`)
	w.text(string(s))
	w.markup(`">`)
	w.text(string(s))
	w.markup("</span>")
}

// contextLink links the task list of a context, shown by the start of its
// id.
func contextLink(w *htmlWriter, contextID string) {
	w.markup(`<a href="` + Path + `?context=`)
	w.query(contextID)
	w.markup(`" title="`)
	w.text(contextID)
	w.markup(`">`)
	w.text(short(contextID))
	w.markup("</a>")
}

// parts shows a message's or an artifact's parts. link is where the
// console serves the artifact's inline files ("" for a message's, which it
// does not serve): link/index.
func parts(w *htmlWriter, ps []a2a.Part, link string) {
	for i, p := range ps {
		w.markup("\n")
		switch p.Kind {
		case a2a.PartKindText:
			w.markup(`<div class="text">`)
			w.text(p.Text)
			w.markup("</div>\n")
		case a2a.PartKindData:
			w.markup(`<pre class="data">`)
			w.text(indentJSON(p.Data))
			w.markup("</pre>\n")
		case a2a.PartKindFile:
			if p.File != nil {
				file(w, p.File, link, i)
			}
		}
	}
}

// file shows a file part: a link to its URI when that is a web address, a
// download of its bytes when the console serves them, else its name.
func file(w *htmlWriter, f *a2a.FileContent, link string, index int) {
	switch {
	case webURL(f.URI):
		w.markup(`<a class="file" href="`)
		w.text(f.URI)
		w.markup(`" rel="noopener noreferrer" target="_blank">`)
		w.text(cmp.Or(f.Name, f.URI))
		w.markup("</a>\n")
	case f.Bytes != "" && link != "":
		w.markup(`<a class="file" href="`)
		w.text(link)
		w.markup("/")
		w.number(index)
		w.markup(`" download>`)
		w.text(cmp.Or(f.Name, "file"))
		w.markup(`</a> <span class="muted">`)
		w.text(f.MimeType)
		w.markup("</span>\n")
	default:
		w.markup(`<span class="file">`)
		w.text(cmp.Or(f.Name, "file"))
		w.markup(" ")
		w.text(f.URI)
		w.markup("</span>\n")
	}
}

// indentJSON is a data part's JSON, indented; as received when it does
// not parse.
func indentJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// short is the start of an id, for a table cell (whole runes).
func short(id string) string {
	const n = 8
	if len(id) <= n {
		return id
	}
	i := n
	for i > 0 && !utf8.RuneStart(id[i]) {
		i--
	}
	return id[:i]
}

// tasksContent is the message form, the filters and the task list.
func tasksContent(w *htmlWriter, v *view) {
	w.markup("<section class=\"panel\">\n<h2>Send a message</h2>\n" +
		"<form method=\"post\" action=\"" + Path + "send\" class=\"send\">\n  ")
	csrfField(w, v.CSRF)
	w.markup("\n  <textarea name=\"text\" rows=\"2\" required placeholder=\"Your message, e.g. permission deploy\"></textarea>\n" +
		"  <div class=\"row\">\n" +
		"    <input name=\"context\" placeholder=\"contextId (optional: continue a conversation)\" value=\"")
	w.text(v.Context)
	w.markup("\">\n")
	if v.Push {
		w.markup("    <input name=\"webhook\" type=\"url\" placeholder=\"webhook URL (optional: push notifications)\">\n")
	}
	w.markup("    <button type=\"submit\">Send</button>\n  </div>\n</form>\n</section>\n\n" +
		"<section class=\"panel\">\n<h2>Tasks</h2>\n" +
		"<form method=\"get\" action=\"" + Path + "\" class=\"filters row\">\n" +
		"  <label>State <select name=\"state\">\n    <option value=\"\">any</option>\n")
	for _, s := range v.States {
		w.markup(`    <option value="`)
		w.text(string(s))
		w.markup(`"`)
		if string(s) == v.State {
			w.markup(" selected")
		}
		w.markup(">")
		w.text(string(s))
		w.markup("</option>\n")
	}
	w.markup("  </select></label>\n  <label>Context <input name=\"context\" value=\"")
	w.text(v.Context)
	w.markup("\" placeholder=\"contextId\"></label>\n  <button type=\"submit\">Filter</button>\n</form>\n<div data-live>")
	tasksLive(w, v)
	w.markup("</div>\n</section>\n")
}

// tasksLive is the task list.
func tasksLive(w *htmlWriter, v *view) {
	if len(v.Tasks) == 0 {
		w.markup(`<p class="muted">No tasks`)
		if v.State != "" || v.Context != "" {
			w.markup(" match")
		} else {
			w.markup(" yet: send a message above")
		}
		w.markup(".</p>\n")
		return
	}
	w.markup("<table class=\"tasks\">\n<thead><tr><th>Task</th><th>State</th><th>Status</th><th>Context</th><th>Updated</th></tr></thead>\n<tbody>\n")
	for i := range v.Tasks {
		t := &v.Tasks[i]
		w.markup(`<tr data-task="`)
		w.text(t.ID)
		w.markup(`" data-state="`)
		w.text(string(t.Status.State))
		w.markup("\">\n  <td><a href=\"" + Path + "tasks/")
		w.segment(t.ID)
		w.markup(`" title="`)
		w.text(t.ID)
		w.markup(`">`)
		w.text(short(t.ID))
		w.markup("</a></td>\n  <td>")
		state(w, t.Status.State)
		w.markup("</td>\n  <td class=\"status\">")
		w.text(t.Status.Message.Text())
		w.markup("</td>\n  <td>")
		contextLink(w, t.ContextID)
		w.markup("</td>\n  <td class=\"muted\">")
		w.text(t.Status.Timestamp)
		w.markup("</td>\n</tr>\n")
	}
	w.markup("</tbody>\n</table>\n<p class=\"muted\">")
	w.number(len(v.Tasks))
	w.markup(" of ")
	w.number(v.Total)
	w.markup(" task(s), newest first.</p>\n")
}

// taskContent is one task's page.
func taskContent(w *htmlWriter, v *view) {
	w.markup("<p><a href=\"" + Path + "\">← all tasks</a></p>\n<div data-live>")
	taskLive(w, v)
	w.markup("</div>\n")
}

// taskLive is a task: its status, what it asks, its artifacts, history
// and push deliveries.
func taskLive(w *htmlWriter, v *view) {
	t := v.Task
	w.markup("<section class=\"panel\">\n<h2>Task <code>")
	w.text(t.ID)
	w.markup("</code> ")
	state(w, t.Status.State)
	w.markup("</h2>\n<p class=\"muted\">context ")
	w.markup(`<a href="` + Path + `?context=`)
	w.query(t.ContextID)
	w.markup(`"><code>`)
	w.text(t.ContextID)
	w.markup("</code></a> · updated ")
	w.text(t.Status.Timestamp)
	w.markup("</p>\n")
	if m := t.Status.Message; m != nil {
		w.markup(`<div class="status-message">`)
		parts(w, m.Parts, "")
		w.markup("</div>\n")
	}
	if !t.Status.State.Terminal() {
		taskAction(w, t.ID, "cancel", "inline")
		csrfField(w, v.CSRF)
		w.markup("<button type=\"submit\" class=\"danger\">Cancel task</button></form>\n")
	}
	w.markup("</section>\n")
	if in := v.Interrupt; in != nil {
		interruptPanel(w, v, in)
	}
	if len(t.Artifacts) > 0 {
		w.markup("<section class=\"panel\">\n<h2>Artifacts</h2>\n")
		for _, a := range t.Artifacts {
			w.markup(`<div class="artifact"><h3>`)
			w.text(cmp.Or(a.Name, a.ArtifactID))
			w.markup("</h3>")
			parts(w, a.Parts, Path+"tasks/"+url.PathEscape(t.ID)+"/files/"+url.PathEscape(a.ArtifactID))
			w.markup("</div>\n")
		}
		w.markup("</section>\n")
	}
	w.markup("<section class=\"panel\">\n<h2>History</h2>\n")
	for _, m := range t.History {
		w.markup(`<div class="message role-`)
		w.text(string(m.Role))
		w.markup(`"><span class="role">`)
		w.text(string(m.Role))
		w.markup("</span>")
		parts(w, m.Parts, "")
		w.markup("</div>\n")
	}
	if len(t.History) == 0 {
		w.markup("<p class=\"muted\">No messages.</p>\n")
	}
	w.markup("</section>\n")
	if v.Push {
		deliveries(w, v)
	}
}

// interruptPanel is what an interrupted task asks, with the forms that
// answer it.
func interruptPanel(w *htmlWriter, v *view, in *interrupt) {
	t := v.Task
	w.markup(`<section class="panel interrupt" data-interrupt="`)
	w.text(in.Type)
	w.markup("\">\n<h2>The agent asks")
	if in.Permission != "" {
		w.markup(" permission to <em>")
		w.text(in.Permission)
		w.markup("</em>")
	}
	w.markup("</h2>\n<p class=\"ask\">")
	w.text(in.Text)
	w.markup("</p>\n")
	switch {
	case in.Type == a2a.InterruptPermission:
		w.markup("<div class=\"row\">\n")
		for _, r := range []struct {
			reply, label, class markup
		}{{"once", "Allow once", ""}, {"always", "Allow always", ""}, {"reject", "Deny", "danger"}} {
			w.markup("  ")
			taskAction(w, t.ID, "permission", "inline")
			csrfField(w, v.CSRF)
			hiddenField(w, "requestId", in.RequestID)
			w.markup(`<input type="hidden" name="reply" value="` + r.reply + `">`)
			w.markup(`<button type="submit" name="do" value="` + r.reply + `" class="` + r.class + `">` + r.label + "</button></form>\n")
		}
		w.markup("</div>\n")
	case in.Type == a2a.InterruptQuestion:
		taskAction(w, t.ID, "answer", "")
		csrfField(w, v.CSRF)
		hiddenField(w, "requestId", in.RequestID)
		w.markup("\n")
		for _, q := range in.Questions {
			w.markup(`  <label class="question">`)
			w.text(q)
			w.markup("<input name=\"answer\" required></label>\n")
		}
		w.markup("  <button type=\"submit\">Answer</button>\n</form>\n")
		taskAction(w, t.ID, "decline", "inline")
		csrfField(w, v.CSRF)
		hiddenField(w, "requestId", in.RequestID)
		w.markup("<button type=\"submit\" class=\"danger\">Decline</button></form>\n")
	case in.URL != "":
		w.markup(`<p><a href="`)
		w.text(in.URL)
		w.markup("\" rel=\"noopener noreferrer\" target=\"_blank\">Authenticate</a>, then send the task a message.</p>\n")
	}
	if in.Plain || in.Type == a2a.InterruptAuth {
		taskAction(w, t.ID, "reply", "row")
		csrfField(w, v.CSRF)
		w.markup("<input name=\"text\" required placeholder=\"Your reply\"><button type=\"submit\">Reply</button></form>\n")
	}
	w.markup("</section>\n")
}

// deliveries is the task's push notification deliveries, each with its
// attempts, a failed one with a redrive button.
func deliveries(w *htmlWriter, v *view) {
	t := v.Task
	w.markup("<section class=\"panel\">\n<h2>Webhook deliveries</h2>\n")
	if len(v.Deliveries) == 0 {
		w.markup("<p class=\"muted\">No push notifications for this task")
		if !t.Status.State.Terminal() {
			w.markup(" yet")
		}
		w.markup(".</p>\n</section>\n")
		return
	}
	w.markup("<table class=\"deliveries\">\n<thead><tr><th>Event</th><th>Config</th><th>State</th><th>Attempts</th><th></th></tr></thead>\n<tbody>\n")
	for _, d := range v.Deliveries {
		w.markup(`<tr data-delivery="`)
		w.text(d.EventID)
		w.markup(`" data-config="`)
		w.text(d.ConfigID)
		w.markup(`" data-state="`)
		w.text(d.State)
		w.markup("\">\n  <td><code>")
		w.text(d.EventID)
		w.markup("</code></td>\n  <td><code>")
		w.text(d.ConfigID)
		w.markup("</code></td>\n  <td><span class=\"delivery delivery-")
		w.text(d.State)
		w.markup(`">`)
		w.text(d.State)
		w.markup("</span>")
		if d.DeadLettered {
			w.markup(` <span class="muted">dead-lettered</span>`)
		}
		if d.Redrives != 0 {
			w.markup(` <span class="muted">redriven `)
			w.number(d.Redrives)
			w.markup("×</span>")
		}
		w.markup("</td>\n  <td><ol class=\"attempts\">")
		for _, a := range d.Attempts {
			w.markup(`<li value="`)
			w.number(a.Attempt)
			w.markup(`"><span class="muted">`)
			w.text(a.At)
			w.markup("</span> ")
			if a.StatusCode != 0 {
				w.markup("<b>")
				w.number(a.StatusCode)
				w.markup("</b> ")
			}
			w.text(a.State)
			if a.Error != "" {
				w.markup(": ")
				w.text(a.Error)
			}
			if a.NextAttemptAt != "" {
				w.markup(` <span class="muted">(next `)
				w.text(a.NextAttemptAt)
				w.markup(")</span>")
			}
			w.markup("</li>")
		}
		w.markup("</ol></td>\n  <td>")
		if d.State == a2a.DeliveryFailed {
			taskAction(w, t.ID, "redrive", "inline")
			csrfField(w, v.CSRF)
			hiddenField(w, "eventId", d.EventID)
			hiddenField(w, "configId", d.ConfigID)
			w.markup("<button type=\"submit\">Redrive</button></form>")
		}
		w.markup("</td>\n</tr>\n")
	}
	w.markup("</tbody>\n</table>\n</section>\n")
}

// loginContent asks for a bearer token.
func loginContent(w *htmlWriter, v *view) {
	w.markup("<section class=\"panel narrow\">\n<h2>Sign in</h2>\n" +
		"<p>This server wants a bearer token (<code>A2A_BEARER_TOKEN</code>, or one of <code>A2A_BEARER_TOKENS</code>). The console shows the tasks of the caller it names.</p>\n")
	if v.Error != "" {
		w.markup(`<p class="error">`)
		w.text(v.Error)
		w.markup("</p>\n")
	}
	w.markup("<form method=\"post\" action=\"" + Path + "login\">\n  ")
	hiddenField(w, "next", v.Next)
	w.markup("\n  <label>Token <input name=\"token\" type=\"password\" autocomplete=\"current-password\" required autofocus></label>\n" +
		"  <button type=\"submit\">Sign in</button>\n</form>\n</section>\n")
}

// messageContent is the agent's direct answer to a message (no task).
func messageContent(w *htmlWriter, v *view) {
	w.markup("<p><a href=\"" + Path + "\">← all tasks</a></p>\n<section class=\"panel\">\n<h2>The agent answered without a task</h2>\n")
	if m := v.Reply; m != nil {
		w.markup(`<div class="message role-`)
		w.text(string(m.Role))
		w.markup(`">`)
		parts(w, m.Parts, "")
		w.markup("</div>\n")
	}
	w.markup("</section>\n")
}

// errorContent says what went wrong.
func errorContent(w *htmlWriter, v *view) {
	w.markup("<section class=\"panel narrow\">\n<h2>")
	w.text(v.Title)
	w.markup("</h2>\n<p class=\"error\">")
	w.text(v.Error)
	w.markup("</p>\n<p><a href=\"" + Path + "\">Back to the tasks</a></p>\n</section>\n")
}
