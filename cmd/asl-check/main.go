// Command asl-check checks the state machines of a SAM template offline, as
// part of `make validate`: what AWS would reject only at deploy time, and
// cfn-lint and moto accept.
//
//	go run ./cmd/asl-check [template.yaml]
//
// For every AWS::Serverless::StateMachine it reads the definition
// (DefinitionUri, relative to the template, or an inline Definition),
// checks that its ${Name} tokens and the DefinitionSubstitutions match both
// ways, substitutes stand-in values and runs cmd/asl-check/internal/asl's checks (every Next,
// Default and Catch names a state, every state is reachable, ...). Each
// problem is printed on its own line naming the resource; the exit status
// is 1 when there is any, 2 when the template cannot be read.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	path := "template.yaml"
	if len(args) > 0 {
		path = args[0]
	}
	checked, problems, err := Check(path)
	if err != nil {
		fmt.Fprintln(stderr, "asl-check:", err)
		return 2
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) > 0 {
		return 1
	}
	fmt.Fprintf(stdout, "asl-check: %s: %d state machine definition(s) OK\n", path, checked)
	return 0
}
