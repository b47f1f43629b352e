package console

import (
	"html"
	"net/url"
	"strconv"
	"strings"
)

// The console's pages are written by Go functions (views.go) through an
// htmlWriter, not by html/template: a template reaches the fields and
// methods of its data by name through reflection, and a binary that can
// call a method by name keeps every exported method of every type it
// links: 3.2 MB of the local server's 17.9, which every start maps and
// initializes (docs/measured.md).

// markup is HTML the console writes itself. Only string constants convert
// to it without a conversion a reader sees: a value cannot become markup
// by mistake.
type markup string

// htmlWriter is a page being written: markup, and values escaped for the
// place they land in (an element's text or a double-quoted attribute
// value; a URL's path segment or query value in such an attribute). The
// console writes no value into a script, a style or an unquoted attribute.
type htmlWriter struct {
	b strings.Builder
}

// markup writes the console's own HTML.
func (w *htmlWriter) markup(m markup) { w.b.WriteString(string(m)) }

// text writes s as text: in an element or a double-quoted attribute value
// it is s, whatever it holds.
func (w *htmlWriter) text(s string) { w.b.WriteString(html.EscapeString(s)) }

// segment writes s as one segment of a URL's path (a slash in it does not
// start another), in an attribute value.
func (w *htmlWriter) segment(s string) { w.text(url.PathEscape(s)) }

// query writes s as a value of a URL's query, in an attribute value.
func (w *htmlWriter) query(s string) { w.text(url.QueryEscape(s)) }

// number writes n.
func (w *htmlWriter) number(n int) { w.b.WriteString(strconv.Itoa(n)) }

func (w *htmlWriter) String() string { return w.b.String() }
