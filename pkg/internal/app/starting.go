package app

import (
	"net/http"
	"slices"

	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// starting is the local server's handler while it starts: the public agent
// card is served at once, by the card's own handler, and every other
// request waits until the server is built (ready), then goes to it. A
// client polling for the card, as one that starts the server does, gets it
// without waiting for the task store, runner, push pipeline and routes,
// which are built meanwhile on another goroutine.
type starting struct {
	card  http.Handler
	ready chan struct{}
	// full and err are set before ready is closed.
	full http.Handler
	err  error
}

func newStarting(card http.Handler) *starting {
	return &starting{card: card, ready: make(chan struct{})}
}

// finish hands the built server's handler, or the error that stopped its
// building, to the requests: those waiting and those to come.
func (s *starting) finish(full http.Handler, err error) {
	s.full, s.err = full, err
	close(s.ready)
}

func (s *starting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.ready:
	default:
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && slices.Contains(httpapi.CardPaths(), r.URL.Path) {
			s.card.ServeHTTP(w, r)
			return
		}
		select {
		case <-s.ready:
		case <-r.Context().Done():
			return // the client went away; the server is still starting
		}
	}
	if s.err != nil {
		http.Error(w, "the server failed to start: "+s.err.Error(), http.StatusServiceUnavailable)
		return
	}
	s.full.ServeHTTP(w, r)
}
