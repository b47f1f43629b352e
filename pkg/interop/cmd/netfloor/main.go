// Command netfloor answers every HTTP request with one constant body: what
// net/http alone costs to answer a call with the bytes of its answer, the
// floor under any Go server on the machine. `make bench-peers` measures it
// beside the servers, with each call's answer as this repository's local
// server gives it, so that a goal below the floor shows as such.
//
//	netfloor -addr 127.0.0.1:9002 [-body answer.json]
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9002", "address to listen on")
	bodyFile := flag.String("body", "", "the answer, read from this file (default: {})")
	spin := flag.Duration("spin", 0, "CPU time spent before each answer (busy, not asleep)")
	flag.Parse()
	body := []byte("{}")
	if *bodyFile != "" {
		var err error
		if body, err = os.ReadFile(*bodyFile); err != nil {
			log.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.Serve(ln, constant(body, *spin)))
}

// constant answers every request with body as JSON, its length stated,
// after reading the request's body (as a server of the call would) and
// spinning for spin.
func constant(body []byte, spin time.Duration) http.Handler {
	contentType, length := []string{"application/json"}, []string{strconv.Itoa(len(body))}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		busy(spin)
		h := w.Header()
		h["Content-Type"], h["Content-Length"] = contentType, length
		_, _ = w.Write(body)
	})
}

// busy keeps the CPU busy for d (by the monotonic clock).
func busy(d time.Duration) {
	if d <= 0 {
		return
	}
	for start := time.Now(); time.Since(start) < d; {
	}
}
