// Command a2ago-echo serves an echo agent with the official a2a-go v2 server
// library (A2A 1.0, JSON-RPC on POST /, its in-memory task store): the
// peer `make bench-peers` measures this repository's local server against.
// Every task completes at once with one artifact holding "echo: <text>",
// as this repository's echo agent does.
//
//	a2ago-echo -addr 127.0.0.1:9001 [-card card.json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"iter"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// echo completes each task with the text it was sent.
type echo struct{}

func (echo) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var text strings.Builder
		for _, p := range ec.Message.Parts {
			text.WriteString(p.Text())
		}
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		art := a2a.NewArtifactEvent(ec, a2a.NewTextPart("echo: "+text.String()))
		art.Artifact.Name = "echo"
		if !yield(art, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (echo) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9001", "address to listen on")
	cardFile := flag.String("card", "", "serve the agent card in this JSON file (read as a2a-go's A2A 1.0 card) instead of the built-in one")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	card := echoCard("http://" + ln.Addr().String())
	if *cardFile != "" {
		if card, err = readCard(*cardFile); err != nil {
			log.Fatal(err)
		}
	}
	log.Fatal(http.Serve(ln, handler(card)))
}

// readCard reads a card; fields a2a-go's 1.0 card type lacks (the A2A
// 0.3 ones) are left out.
func readCard(path string) (*a2a.AgentCard, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(raw, &card); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &card, nil
}

// handler serves the card and JSON-RPC on POST /.
func handler(card *a2a.AgentCard) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /{$}", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echo{})))
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	return mux
}

// echoCard is the card of the echo agent, served at base.
func echoCard(base string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        "Echo Agent",
		Description: "Completes every task at once with an artifact holding the text it was sent.",
		Version:     "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(base+"/", a2a.TransportProtocolJSONRPC),
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID: "echo", Name: "Echo", Description: "Returns the text of your message as an artifact.",
			Tags: []string{"echo", "test"}, Examples: []string{"hello"},
		}},
	}
}
