package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/agenttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

// WordCounter is a complete agent: it counts the words of each message.
type WordCounter struct{ greeting string }

// NewWordCounter is its agent.Factory: it reads the agent's one setting.
func NewWordCounter(s agent.Settings) (agent.Agent, error) {
	return WordCounter{greeting: s.String("WORDS_GREETING", "Hello")}, nil
}

func (WordCounter) Info() agent.Info {
	return agent.Info{Name: "Word counter", Description: "Counts the words of your message.", Version: "1.0.0"}
}

func (a WordCounter) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	if err := emit.Status(ctx, agent.Text("Counting...")); err != nil {
		return agent.Outcome{}, err // the task was canceled
	}
	n := len(strings.Fields(a2a.PartsText(in.Message.Parts)))
	return agent.Complete(agent.Text(fmt.Sprintf("%s! %d words.", a.greeting, n))), nil
}

// An agent implements Info and Step; a registry builds it by name with its
// settings, and the host runs its steps. agenttest serves it the way the
// local server does.
func Example() {
	reg := agent.NewRegistry()
	reg.Register("words", NewWordCounter)
	ag, err := reg.New("words", envtest.Getenv("WORDS_GREETING", "Hi"))
	if err != nil {
		fmt.Println(err)
		return
	}
	svc := agenttest.Serve(nopT{}, ag)
	task := agenttest.Send(nopT{}, svc, agenttest.Message("one two three"), nil)
	fmt.Println(task.Status.State, task.Status.Message.Text())
	// Output: completed Hi! 3 words.
}

// The emitter records progress while a step runs: status messages, and
// artifacts given whole or in chunks. Each call is stored before it
// returns.
func ExampleEmitter() {
	poem := agentFunc(func(ctx context.Context, _ agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
		for i, line := range []string{"Roses are red,\n", "violets are blue."} {
			if err := emit.Status(ctx, agent.Text(fmt.Sprintf("Writing line %d", i+1))); err != nil {
				return agent.Outcome{}, err
			}
			chunk := a2a.Artifact{ArtifactID: "poem", Parts: []a2a.Part{a2a.TextPart(line)}}
			if err := emit.Artifact(ctx, chunk, agent.ArtifactOptions{Append: true, LastChunk: i == 1}); err != nil {
				return agent.Outcome{}, err
			}
		}
		return agent.Complete(agent.Text("Done.")), nil
	})
	svc := agenttest.Serve(nopT{}, poem)
	task := agenttest.Send(nopT{}, svc, agenttest.Message("a poem, please"), nil)
	fmt.Printf("%s %q\n", task.Status.State, a2a.PartsText(task.Artifacts[0].Parts))
	for _, m := range task.History[1:] { // after the user's message
		fmt.Println(m.Text())
	}
	// Output:
	// completed "Roses are red,\nviolets are blue."
	// Writing line 1
	// Writing line 2
	// Done.
}

// Every outcome is one value: finished (Complete, Respond, Fail, Reject),
// waiting for the client (AskQuestion, AskPermission, RequireAuth), or
// Continue, which runs the next step later with a checkpoint. The next step
// reads the checkpoint back with DecodeCheckpoint.
func ExampleContinue() {
	type count struct{ Next int }
	countdown := agentFunc(func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
		st := count{Next: 3}
		if err := in.DecodeCheckpoint(&st); err != nil {
			return agent.Outcome{}, err
		}
		if st.Next == 0 {
			return agent.Complete(agent.Text("Liftoff!")), nil
		}
		if err := emit.Status(ctx, agent.Text(fmt.Sprint(st.Next))); err != nil {
			return agent.Outcome{}, err
		}
		return agent.Continue(time.Millisecond, count{Next: st.Next - 1}), nil
	})
	svc := agenttest.Serve(nopT{}, countdown)
	task := agenttest.Send(nopT{}, svc, agenttest.Message("count"), nil)
	for _, m := range task.History[1:] { // after the user's message
		fmt.Print(m.Text(), " ")
	}
	fmt.Println(task.Status.State)
	// Output: 3 2 1 Liftoff! completed
}

// An interrupt keeps its own state for the step that resumes it:
// WithCheckpoint adds one to any outcome.
func ExampleOutcome_WithCheckpoint() {
	type pending struct{ Action string }
	deployer := agentFunc(func(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
		if in.Reply == nil {
			ask := agent.AskPermission(agent.Text("May I deploy? Reply once, always or reject."), map[string]any{"action": "deploy"})
			return ask.WithCheckpoint(pending{Action: "deploy"}), nil
		}
		var p pending
		if err := in.DecodeCheckpoint(&p); err != nil {
			return agent.Outcome{}, err
		}
		return agent.Complete(agent.Text(fmt.Sprintf("%s: %s", p.Action, in.Reply.Permission))), nil
	})
	svc := agenttest.Serve(nopT{}, deployer)
	task := agenttest.SendText(nopT{}, svc, "deploy it", "")
	fmt.Println(task.Status.State, task.Status.Message.Text())
	task = agenttest.SendText(nopT{}, svc, "once", task.ID)
	fmt.Println(task.Status.State, task.Status.Message.Text())
	// Output:
	// input-required May I deploy? Reply once, always or reject.
	// completed deploy: once
}

// An agent's settings come from the environment, then from the JSON object
// of A2A_AGENT_SETTINGS (on a stack, its AgentSettings parameter): an agent
// reads its own by name, and the typed getters' errors name the setting.
func ExampleSettings() {
	s, err := agent.SettingsFrom(envtest.Getenv(
		"WORDS_GREETING", "Hi",
		agent.EnvSettings, `{"WORDS_GREETING": "Hello", "WORDS_MAX": 200, "WORDS_LANGUAGES": ["en", "fr"], "WORDS_LOUD": true}`,
	))
	if err != nil {
		fmt.Println(err)
		return
	}
	limit, _ := s.Int("WORDS_MAX", 100, 1, 1000)
	loud, _ := s.Bool("WORDS_LOUD", false)
	fmt.Println(s.String("WORDS_GREETING", "Hey"), limit, s.List("WORDS_LANGUAGES"), loud)
	_, err = s.Int("WORDS_LOUD", 0, 0, 10)
	fmt.Println(err)
	// Output:
	// Hi 200 [en fr] true
	// WORDS_LOUD="true" must be an integer from 0 to 10
}

// agentFunc is an agent made of its Step.
type agentFunc func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error)

func (agentFunc) Info() agent.Info { return agent.Info{Name: "example"} }

func (f agentFunc) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	return f(ctx, in, emit)
}

// nopT stands in for the *testing.T that agenttest's helpers take: an
// example has none. A failure panics; cleanups are left to the process's
// end.
type nopT struct{ testing.TB }

func (nopT) Helper()                        {}
func (nopT) Cleanup(func())                 {}
func (nopT) Errorf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (nopT) FailNow()                       { panic("example failed") }
