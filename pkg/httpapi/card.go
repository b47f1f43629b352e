package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

// cardCacheControl lets clients and CDNs reuse a card for five minutes and
// revalidate it with If-None-Match afterwards.
const cardCacheControl = "public, max-age=300"

// cardCacheControlHeader is its header value, shared (see jsonHeader).
var cardCacheControlHeader = []string{cardCacheControl}

// maxCardCache bounds the cards rendered for request-derived base URLs.
const maxCardCache = 16

// CardSource builds the cards for a base URL: the public card, and
// extended, which builds the authenticated extended card. extended is
// called at the first request for that card: only authenticated callers
// ask for it, and building it would cost every start-up.
type CardSource func(publicURL string) (public a2a.AgentCard, extended func() a2a.AgentCard)

// document is a JSON document rendered once, with its validators and, when
// it is large enough, its gzip encoding.
type document struct {
	body []byte
	// gz is body gzip-compressed, made on the first request that takes
	// it: compressing at start-up would cost every process (a gzip
	// writer is 800 KB of state) what few of them use.
	gz      func() []byte
	gzipMin int
	// etag is the document's one validator, a hash of its content: every
	// process that renders the same document agrees on it. No
	// Last-Modified (the A2A specification's MAY): a process knows only
	// when it rendered the document, which differs from one Lambda
	// instance to the next for the same card.
	etag string
	// etagHeader and lengthHeader are the ETag and Content-Length header
	// values, built once: a response's header map shares them (nothing
	// modifies them in place; an Add would copy), which saves an
	// allocation per request.
	etagHeader, lengthHeader []string
}

func newDocument(v any, gzipMin int) (*document, error) {
	b, err := render(v)
	if err != nil {
		return nil, fmt.Errorf("httpapi: render %T: %w", v, err)
	}
	sum := sha256.Sum256(b)
	etag := `W/"` + hex.EncodeToString(sum[:12]) + `"`
	d := &document{body: b, gzipMin: gzipMin, etag: etag, etagHeader: []string{etag}, lengthHeader: []string{strconv.Itoa(len(b))}}
	d.gz = sync.OnceValue(func() []byte { return compress(b) })
	return d, nil
}

// render encodes a document: the cards without reflection (a process's
// first card would otherwise pay for encoding/json's study of every card
// type), anything else with encoding/json.
func render(v any) ([]byte, error) {
	switch c := v.(type) {
	case *a2a.AgentCard:
		return a2av1.AppendCard(make([]byte, 0, cardSizeHint), c)
	case *a2av1.AgentCard:
		return c.AppendJSON(make([]byte, 0, cardSizeHint))
	}
	return json.Marshal(v)
}

// cardSizeHint is room for a card with a few skills and extensions.
const cardSizeHint = 4 << 10

// serve writes the document, or 304 when the client's copy is current (a
// matching If-None-Match, RFC 9110 13.2.2).
func (d *document) serve(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr["Etag"] = d.etagHeader
	hdr["Cache-Control"] = cardCacheControlHeader
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, d.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	d.serveFresh(w, r)
}

// serveFresh writes the document without cache validators.
func (d *document) serveFresh(w http.ResponseWriter, r *http.Request) {
	body, length := gzipBody(w, r, d.gzipMin, d.body, d.gz), d.lengthHeader
	if w.Header()["Content-Encoding"] != nil {
		length = nil // compressed: a length of its own
	}
	writeWhole(w, jsonHeader, body, length)
}

// etagMatch compares weakly, as If-None-Match requires.
func etagMatch(header, etag string) bool {
	weak := strings.TrimPrefix(etag, "W/")
	for _, c := range strings.Split(header, ",") {
		c = strings.TrimSpace(c)
		if c == "*" || strings.TrimPrefix(c, "W/") == weak {
			return true
		}
	}
	return false
}

// cards renders the cards once per base URL: the configured public URL, or,
// when none is configured (a Lambda behind an API whose URL is only known at
// request time), the URL the request was addressed to.
type cards struct {
	source  CardSource
	gzipMin int
	// serves03: the public card keeps the 0.3 fields; without 0.3 it is
	// the pure 1.0 card.
	serves03 bool
	// decorate completes the extended card (the wire contract) from the
	// public one.
	decorate func(pub, ext *a2a.AgentCard)

	// fixed is the cards of the configured public URL, when there is one:
	// every request's, read without the lock.
	fixed *cardPair

	mu       sync.Mutex
	rendered map[string]*cardPair
}

type cardPair struct {
	public *document
	// extended and extended10 (the extended card in its pure 1.0 form,
	// a2av1.Card, for 1.0 callers) are rendered at their first request:
	// only authenticated callers ask for them, and rendering a card
	// costs a process's start-up a tenth of a millisecond each.
	extended, extended10 func() (*document, error)
	// hasExtended is whether the public card declares the extended card
	// (only when callers authenticate).
	hasExtended bool
}

func newCards(source CardSource, publicURL string, gzipMin int, serves03 bool, decorate func(pub, ext *a2a.AgentCard)) (*cards, error) {
	c := &cards{source: source, gzipMin: gzipMin, serves03: serves03, decorate: decorate, rendered: map[string]*cardPair{}}
	if publicURL != "" {
		p, err := c.render(publicURL)
		if err != nil {
			return nil, err
		}
		c.fixed = p
	}
	return c, nil
}

func (c *cards) forRequest(r *http.Request) (*cardPair, error) {
	if c.fixed != nil {
		return c.fixed, nil
	}
	return c.render(requestBaseURL(r))
}

func (c *cards) render(base string) (*cardPair, error) {
	c.mu.Lock()
	p, ok := c.rendered[base]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	pub, extended := c.source(base)
	ext := sync.OnceValue(func() a2a.AgentCard {
		e := extended()
		if c.decorate != nil {
			c.decorate(&pub, &e)
		}
		return e
	})
	var public any = &pub
	if !c.serves03 {
		v1 := a2av1.Card(pub)
		public = &v1
	}
	pd, err := newDocument(public, c.gzipMin)
	if err != nil {
		return nil, err
	}
	p = &cardPair{public: pd, hasExtended: pub.SupportsAuthenticatedExtendedCard || pub.Capabilities.ExtendedAgentCard,
		extended: sync.OnceValues(func() (*document, error) {
			e := ext()
			return newDocument(&e, c.gzipMin)
		}),
		extended10: sync.OnceValues(func() (*document, error) {
			v1 := a2av1.Card(ext())
			return newDocument(&v1, c.gzipMin)
		}),
	}
	c.mu.Lock()
	if len(c.rendered) < maxCardCache {
		c.rendered[base] = p
	}
	c.mu.Unlock()
	return p, nil
}

// requestBaseURL is the scheme and host a request was addressed to, as seen
// through API Gateway or a proxy.
func requestBaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host
}

func (h *handler) serveCard(w http.ResponseWriter, r *http.Request) {
	p, err := h.cards.forRequest(r)
	if err != nil {
		writeRESTError(w, h.protocolError(r.Context(), err, "card"))
		return
	}
	p.public.serve(w, r)
}

func (h *handler) restExtendedCard(w http.ResponseWriter, r *http.Request, c call) {
	p, err := h.extendedCardPair(r)
	if err != nil {
		writeRESTError(w, h.protocolError(r.Context(), err, "extended card"))
		return
	}
	d, err := p.extendedFor(c.wire)
	if err != nil {
		writeRESTError(w, h.protocolError(r.Context(), err, "extended card"))
		return
	}
	d.serve(w, r)
}

// extendedCard is the result of agent/getAuthenticatedExtendedCard and
// GetExtendedAgentCard.
func (h *handler) extendedCard(r *http.Request, c call) (json.RawMessage, error) {
	p, err := h.extendedCardPair(r)
	if err != nil {
		return nil, err
	}
	d, err := p.extendedFor(c.wire)
	if err != nil {
		return nil, err
	}
	return d.body, nil
}

// extendedFor is the extended card in the shape of a call's version: 1.0
// callers get the pure 1.0 card.
func (p *cardPair) extendedFor(wr *wire) (*document, error) {
	if wr.version == a2a.V10 {
		return p.extended10()
	}
	return p.extended()
}

// errNoExtendedCard answers the extended card methods of an agent whose
// public card declares none (authentication is off).
var errNoExtendedCard = a2a.Errorf(a2a.CodeExtendedCardNotConfigured,
	"no extended agent card is configured: this agent runs without authentication, so it serves only its public card at /.well-known/agent-card.json")

// errExtendedCardCredentials answers a request for the extended card
// without valid credentials.
var errExtendedCardCredentials = a2a.Errorf(a2a.CodeExtendedCardNotConfigured,
	"the authenticated extended card needs valid credentials: send Authorization: Bearer <token>")

// extendedCardPair returns the cards of a request whose public card
// declares the extended card, or -32007.
func (h *handler) extendedCardPair(r *http.Request) (*cardPair, error) {
	p, err := h.cards.forRequest(r)
	if err != nil {
		return nil, err
	}
	if !p.hasExtended {
		return nil, errNoExtendedCard
	}
	return p, nil
}
