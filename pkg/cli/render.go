package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
)

// ANSI sequences of the terminal renderer.
const (
	clearLine = "\r\033[K"
	dim       = "\033[2m"
	bold      = "\033[1m"
	reset     = "\033[0m"
)

// spinner frames of the terminal status line.
const spinner = `|/-\`

// partText renders one part as text: data parts as JSON, files by name.
func partText(p a2a.Part) string {
	switch p.Kind {
	case a2a.PartKindText:
		return p.Text
	case a2a.PartKindData:
		return string(p.Data)
	case a2a.PartKindFile:
		if p.File == nil {
			return "[file]"
		}
		desc := strings.TrimSpace(p.File.Name + " " + p.File.MimeType)
		if p.File.URI != "" {
			return fmt.Sprintf("[file %s %s]", desc, p.File.URI)
		}
		return fmt.Sprintf("[file %s, %d bytes base64]", desc, len(p.File.Bytes))
	}
	return ""
}

// partsText renders parts one per line, as the progress lines show them:
// an agent that appends "step 1 of 3" and "step 2 of 3" as two parts means
// two lines.
func partsText(parts []a2a.Part) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(partText(p))
	}
	return b.String()
}

func artifactName(a a2a.Artifact) string {
	if a.Name != "" {
		return a.Name
	}
	return a.ArtifactID
}

// elapsed formats a duration for progress lines: 3.2s, 1m05s.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// oneLine shortens text to one line of at most n characters.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	return string(r[:n-3]) + "..."
}

// progress renders the changes of a task while the CLI waits for it. On a
// terminal the last line is a status line (spinner, state, elapsed time,
// latest status message) redrawn in place, with artifact text printed
// above it as it grows; otherwise every change is one plain line.
type progress struct {
	w     io.Writer
	term  bool
	width int
	start time.Time

	mu     sync.Mutex
	state  a2a.TaskState
	status string
	frame  int
	// drawn: the status line is on screen (terminal).
	drawn bool
	// tail is the last line of artifact text printed, of artifact
	// tailArtifact; while tailIntact (nothing printed after it), text that
	// grows is drawn by rewriting that line (terminal).
	tail         string
	tailArtifact string
	tailIntact   bool
	// lastArtifact is the artifact of the last printed part; a header is
	// printed when it changes.
	lastArtifact string

	stop chan struct{}
	done chan struct{}
}

func newProgress(w io.Writer, term bool, width int, start time.Time) *progress {
	if width <= 0 {
		width = 80
	}
	return &progress{w: w, term: term, width: width, start: start}
}

// run starts redrawing the status line every tick (terminal only) and
// returns a function that stops it.
func (p *progress) run(tick time.Duration) func() {
	if !p.term {
		return func() {}
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return p.stopTicking
}

// stopTicking stops the redraws; it may be called more than once.
func (p *progress) stopTicking() {
	if p.stop == nil {
		return
	}
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

func (p *progress) since() string { return elapsed(time.Since(p.start)) }

// update renders one change reported by client.Wait.
func (p *progress) update(u client.Update) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := u.Task
	if u.First {
		p.line(fmt.Sprintf("task %s (context %s)", t.ID, t.ContextID))
	}
	if u.StatusMessage != nil {
		p.status = partsText(u.StatusMessage.Parts)
	} else if u.StateChanged {
		p.status = ""
	}
	p.state = t.Status.State
	if !p.term && (u.StateChanged || u.StatusMessage != nil) && !p.state.Settled() {
		msg := ""
		if p.status != "" {
			msg = ": " + oneLine(p.status, 200)
		}
		fmt.Fprintf(p.w, "[%s] %s%s\n", p.since(), p.state, msg)
	}
	for _, a := range u.Artifacts {
		p.artifact(a)
	}
	if p.term {
		p.redraw()
	}
}

// line prints a line of its own above the status line.
func (p *progress) line(s string) {
	if p.term {
		p.clearStatus()
		fmt.Fprintf(p.w, "%s%s%s\n", dim, s, reset)
		p.tailIntact = false
		return
	}
	fmt.Fprintln(p.w, s)
}

func (p *progress) artifact(ch client.ArtifactChange) {
	name := artifactName(ch.Artifact)
	id := ch.Artifact.ArtifactID
	if !p.term {
		for i, part := range ch.NewParts {
			label := name
			switch {
			case i == 0 && ch.Grown:
				label += " (continued)"
			case i == 0 && ch.Replaced:
				label += " (replaced)"
			}
			fmt.Fprintf(p.w, "[%s] %s: %s\n", p.since(), label, partText(part))
		}
		return
	}
	p.clearStatus()
	for i, part := range ch.NewParts {
		text := partText(part)
		if i == 0 && ch.Grown && p.tailIntact && p.tailArtifact == id && !strings.Contains(text, "\n") &&
			utf8.RuneCountInString(p.tail+text) < p.width {
			// Rewrite the previous line with the text grown.
			p.tail += text
			fmt.Fprintf(p.w, "\033[1A\r%s\n", p.tail)
			continue
		}
		if p.lastArtifact != id || (i == 0 && ch.Replaced) {
			fmt.Fprintf(p.w, "%s── %s ──%s\n", dim, name, reset)
			p.lastArtifact = id
		}
		io.WriteString(p.w, text)
		if !strings.HasSuffix(text, "\n") {
			io.WriteString(p.w, "\n")
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		p.tail, p.tailArtifact, p.tailIntact = lines[len(lines)-1], id, true
	}
}

func (p *progress) clearStatus() {
	if p.drawn {
		io.WriteString(p.w, clearLine)
		p.drawn = false
	}
}

// redraw draws the status line in place.
func (p *progress) redraw() {
	state := p.state
	if state == "" {
		state = "waiting"
	}
	head := fmt.Sprintf("%c %s · %s", spinner[p.frame%len(spinner)], state, p.since())
	line := fmt.Sprintf("%c %s%s%s · %s", spinner[p.frame%len(spinner)], bold, state, reset, p.since())
	if room := p.width - utf8.RuneCountInString(head) - 4; p.status != "" && room > 10 {
		line += " · " + oneLine(p.status, room)
	}
	io.WriteString(p.w, clearLine+line)
	p.drawn = true
}

// tick advances the spinner and the elapsed time.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frame++
	p.redraw()
}

// finish clears the status line and prints how the task ended (nothing
// when t is nil).
func (p *progress) finish(t *a2a.Task) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.term {
		p.clearStatus()
	}
	if t == nil {
		return
	}
	msg := partsText(statusParts(t))
	if p.term {
		mark := map[a2a.TaskState]string{
			a2a.TaskStateCompleted: "✓", a2a.TaskStateFailed: "✗", a2a.TaskStateCanceled: "✗", a2a.TaskStateRejected: "✗",
			a2a.TaskStateInputRequired: "?", a2a.TaskStateAuthRequired: "!",
		}[t.Status.State]
		fmt.Fprintf(p.w, "%s %s%s%s after %s", mark, bold, t.Status.State, reset, p.since())
	} else {
		fmt.Fprintf(p.w, "[%s] %s", p.since(), t.Status.State)
	}
	if msg != "" {
		fmt.Fprintf(p.w, ": %s", msg)
	}
	fmt.Fprintln(p.w)
}

func statusParts(t *a2a.Task) []a2a.Part {
	if t.Status.Message == nil {
		return nil
	}
	return t.Status.Message.Parts
}

// printTask prints a task and its artifacts.
func printTask(w io.Writer, t *a2a.Task) {
	fmt.Fprintf(w, "task     %s\ncontext  %s\nstate    %s", t.ID, t.ContextID, t.Status.State)
	if t.Status.Timestamp != "" {
		fmt.Fprintf(w, " (%s)", t.Status.Timestamp)
	}
	fmt.Fprintln(w)
	if msg := partsText(statusParts(t)); msg != "" {
		fmt.Fprintf(w, "message  %s\n", strings.ReplaceAll(msg, "\n", "\n         "))
	}
	for _, a := range t.Artifacts {
		fmt.Fprintf(w, "artifact %s\n", artifactName(a))
		for _, line := range strings.Split(partsText(a.Parts), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// printNext says what the user can do next with a task.
func printNext(w io.Writer, url string, t *a2a.Task) {
	st := t.Status.State
	switch {
	case st == a2a.TaskStateInputRequired:
		pi := client.Interrupt(t)
		if pi.Type == "permission" {
			fmt.Fprintf(w, "  allow:  a2a reply %s %s --allow once   (or --allow always, or --deny)\n", url, t.ID)
			return
		}
		fmt.Fprintf(w, "  answer: a2a reply %s %s \"your answer\"\n", url, t.ID)
	case st == a2a.TaskStateAuthRequired:
		fmt.Fprintf(w, "  the agent needs you to authenticate as it asks, then: a2a reply %s %s \"done\"\n", url, t.ID)
	case !st.Terminal():
		fmt.Fprintf(w, "  follow: a2a get %s %s --wait\n", url, t.ID)
	}
}

// printList prints a page of tasks, one line each.
func printList(w io.Writer, r *a2a.ListTasksResult) {
	if len(r.Tasks) == 0 {
		fmt.Fprintln(w, "no tasks")
		return
	}
	fmt.Fprintf(w, "%-36s  %-14s  %-24s  %s\n", "TASK", "STATE", "UPDATED", "MESSAGE")
	for _, t := range r.Tasks {
		fmt.Fprintf(w, "%-36s  %-14s  %-24s  %s\n", t.ID, t.Status.State, t.Status.Timestamp, oneLine(partsText(statusParts(&t)), 60))
	}
	fmt.Fprintf(w, "%d of %d task(s)", len(r.Tasks), r.TotalSize)
	if r.NextPageToken != "" {
		fmt.Fprintf(w, "; next page: --page-token %s", r.NextPageToken)
	}
	fmt.Fprintln(w)
}

// printCard prints the card, marking the interface the client would use.
func printCard(w io.Writer, c *client.Card, chosen client.AgentInterface) {
	fmt.Fprintf(w, "%s (version %s)\n%s\n\ninterfaces:\n", c.Name, c.Version, c.Description)
	for _, i := range c.Interfaces {
		mark := " "
		if i.Binding == chosen.Binding && i.Version == chosen.Version && i.URL == chosen.URL {
			mark = "*"
		}
		fmt.Fprintf(w, "  %s %-9s %-4s %s\n", mark, i.Binding, i.Version, i.URL)
	}
	fmt.Fprintf(w, "capabilities: streaming=%t pushNotifications=%t extendedCard=%t\n",
		c.Capabilities.Streaming, c.Capabilities.PushNotifications, c.SupportsAuthenticatedExtendedCard)
	if len(c.SecuritySchemes) > 0 {
		var names []string
		for n, s := range c.SecuritySchemes {
			names = append(names, strings.TrimSpace(n+" ("+s.Type+" "+s.Scheme+")"))
		}
		fmt.Fprintf(w, "security: %s\n", strings.Join(names, ", "))
	}
	if len(c.Skills) > 0 {
		fmt.Fprintln(w, "skills:")
		for _, s := range c.Skills {
			fmt.Fprintf(w, "  %-12s %s: %s\n", s.ID, s.Name, s.Description)
			for _, e := range s.Examples {
				fmt.Fprintf(w, "  %-12s e.g. %q\n", "", e)
			}
		}
	}
}
