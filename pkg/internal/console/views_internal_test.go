package console

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Values an agent or a caller chooses, each written where it could break
// out of its place if it were not escaped.
const (
	evilID      = `t"><script>alert(1)</script>/x?y#z`
	evilContext = `c' onmouseover='alert(2)&<b>`
	evilText    = `<img src=x onerror=alert(3)> & "quoted" 'single'`
	evilName    = `</a><a href="javascript:alert(4)">`
	evilError   = `</li><script>alert(5)</script>`
	evilData    = `{"html":"</pre><script>alert(6)</script>"}`
)

// evilView is a task page's view with every section shown, each holding
// hostile values.
func evilView(in *interrupt) *view {
	msg := &a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(evilText)}}
	task := &a2a.Task{
		ID: evilID, ContextID: evilContext,
		Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: msg, Timestamp: evilText},
		Artifacts: []a2a.Artifact{{ArtifactID: evilID, Name: evilName, Parts: []a2a.Part{
			{Kind: a2a.PartKindData, Data: []byte(evilData)},
			{Kind: a2a.PartKindFile, File: &a2a.FileContent{URI: "javascript:alert(7)", Name: evilName}},
			{Kind: a2a.PartKindFile, File: &a2a.FileContent{URI: `https://files.example/a b?c="d"<e>`}},
			{Kind: a2a.PartKindFile, File: &a2a.FileContent{Bytes: "aGk=", Name: evilName, MimeType: evilText}},
		}}},
		History: []a2a.Message{{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(evilText)}}, *msg},
	}
	return &view{
		Title: evilText, Agent: evilName, Bearer: true, Push: true, CSRF: evilText, Error: evilError, Next: evilText,
		States: a2a.TaskStates, State: evilText, Context: evilContext, Tasks: []a2a.Task{*task}, Total: 7,
		Task: task, Interrupt: in, Reply: msg,
		Deliveries: []a2a.Delivery{{EventID: evilID, ConfigID: evilContext, State: a2a.DeliveryFailed, Redrives: 2,
			Attempts: []a2a.DeliveryAttempt{{Attempt: 1, At: evilText, StatusCode: 400, Error: evilError, State: a2a.DeliveryFailed, NextAttemptAt: evilText}}}},
	}
}

// written is a page as a browser reads it: its text, its attributes, and
// what a browser would run or follow.
type written struct {
	text    string
	attrs   map[string][]string
	scripts []string
	links   []string
	// questions are the labels of a question form's answers.
	questions []string
}

func read(t *testing.T, doc string) written {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	require.NoError(t, err)
	w := written{attrs: map[string][]string{}}
	var text strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			text.WriteString(n.Data)
		case html.ElementNode:
			for _, a := range n.Attr {
				w.attrs[a.Key] = append(w.attrs[a.Key], a.Val)
				assert.False(t, strings.HasPrefix(strings.ToLower(a.Key), "on"), "an event handler attribute %s=%q", a.Key, a.Val)
				switch a.Key {
				case "href", "action":
					w.links = append(w.links, a.Val)
				case "src":
					w.scripts = append(w.scripts, a.Val)
				}
			}
			if n.Data == "script" {
				assert.Nil(t, n.FirstChild, "an inline script")
			}
			if n.Data == "label" && len(n.Attr) == 1 && n.Attr[0].Val == "question" && n.FirstChild != nil {
				w.questions = append(w.questions, n.FirstChild.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	w.text = text.String()
	return w
}

// Every page, whole and as its live part, with hostile values in every
// place a value goes: each shows as itself, nothing becomes markup, a
// script or a link that leaves the console (but a file's web address).
func TestPagesEscapeWhatTheyShow(t *testing.T) {
	interrupts := map[string]*interrupt{
		"none":       nil,
		"permission": {RequestID: evilText, Type: a2a.InterruptPermission, Text: evilText, Permission: evilName},
		"question":   {RequestID: evilText, Type: a2a.InterruptQuestion, Text: evilText, Questions: []string{evilText, evilName}},
		"auth":       {RequestID: evilText, Type: a2a.InterruptAuth, Text: evilText, URL: `https://idp.example/auth?x="<y>"`},
		"plain":      {Text: evilText, Plain: true},
	}
	pages := map[string]page{"tasks": pageTasks, "task": pageTask, "login": pageLogin, "message": pageMessage, "error": pageError}
	for pname, p := range pages {
		for iname, in := range interrupts {
			for _, live := range []bool{false, true} {
				var b htmlWriter
				p.write(&b, evilView(in), live)
				w := read(t, b.String())
				where := pname + "/" + iname
				if live {
					where += "/live"
				}
				assert.NotContains(t, b.String(), "<script>", where)
				for _, s := range w.scripts {
					assert.Equal(t, Path+"static/console.js", s, where)
				}
				for _, l := range w.links {
					u, err := url.Parse(l)
					require.NoError(t, err, where)
					if strings.HasPrefix(l, Path) {
						assert.Empty(t, u.Fragment, "%s: %q leaves no fragment", where, l)
						continue
					}
					assert.True(t, webURL(l), "%s: %q is a web address", where, l)
				}
				if !live || p.live == nil {
					assert.Contains(t, w.text, evilText+" · "+evilName+" console", where)
					assert.Contains(t, w.attrs["value"], evilText, "%s: the form token", where)
				}
			}
		}
	}

	var b htmlWriter
	pageTask.write(&b, evilView(interrupts["question"]), true)
	w := read(t, b.String())
	for _, s := range []string{evilID, evilContext, evilText, evilName, evilError, `"html": "\u003c/pre\u003e\u003cscript\u003ealert(6)\u003c/script\u003e"`, "javascript:alert(7)"} {
		assert.Contains(t, w.text, s, "shown as text")
	}
	assert.Contains(t, w.links, "https://files.example/a b?c=\"d\"<e>", "a file's web address, as sent")
	assert.NotContains(t, w.links, "javascript:alert(7)")
	for _, l := range w.links {
		if rest, ok := strings.CutPrefix(l, Path+"tasks/"); ok {
			u, err := url.Parse(l)
			require.NoError(t, err)
			assert.Empty(t, u.RawQuery, "%q: the id's ? stays in its segment", l)
			id, _, _ := strings.Cut(rest, "/")
			id, err = url.PathUnescape(id)
			require.NoError(t, err)
			assert.Equal(t, evilID, id, l)
		}
	}
	assert.Contains(t, w.links, Path+"tasks/"+url.PathEscape(evilID)+"/files/"+url.PathEscape(evilID)+"/3", "the inline file's download")
	assert.Contains(t, w.links, Path+"?context="+url.QueryEscape(evilContext))
	assert.ElementsMatch(t, []string{evilText, evilName}, w.questions)
}

// A page's live part is what its data-live element holds; a page without
// one is written whole, even when its live part is asked for.
func TestLivePart(t *testing.T) {
	v := evilView(nil)
	for _, p := range []page{pageTasks, pageTask} {
		var whole, live htmlWriter
		p.write(&whole, v, false)
		p.write(&live, v, true)
		assert.Contains(t, whole.String(), "<div data-live>"+live.String()+"</div>")
		assert.NotContains(t, live.String(), "<html")
	}
	for _, p := range []page{pageLogin, pageMessage, pageError} {
		var b htmlWriter
		p.write(&b, v, true)
		assert.True(t, strings.HasPrefix(b.String(), "<!doctype html>"))
	}
}

func TestShort(t *testing.T) {
	for in, want := range map[string]string{
		"":           "",
		"abc":        "abc",
		"0123456789": "01234567",
		"0123456é":   "0123456",
		"012345678":  "01234567",
		"ééééé":      "éééé",
	} {
		assert.Equal(t, want, short(in), in)
	}
}

// BenchmarkTaskPage is what a task's page costs to write, its live part
// refreshed every 1.5 s while it is open.
func BenchmarkTaskPage(b *testing.B) {
	v := evilView(nil)
	b.ReportAllocs()
	for b.Loop() {
		var w htmlWriter
		pageTask.write(&w, v, false)
	}
}
