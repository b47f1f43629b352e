// Command rules-check checks a template's Rules offline, as part of `make
// validate`: CloudFormation accepts only Ref and the rule-specific
// functions in a rule's RuleCondition and Assert (Fn::And, Fn::Contains,
// Fn::EachMemberEquals, Fn::EachMemberIn, Fn::Equals, Fn::Not, Fn::Or,
// Fn::RefAll, Fn::ValueOf, Fn::ValueOfAll) and rejects any other function
// (Fn::Join, Fn::If, Fn::Sub, ...) when it creates the change set, which
// cfn-lint does not catch.
//
//	go run ./cmd/rules-check [template.yaml]
//
// Each problem is printed on its own line naming the rule; the exit status
// is 1 when there is any, 2 when the template cannot be read.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// ruleFunctions are the functions CloudFormation allows in Rules
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/rules-section-structure.html).
var ruleFunctions = []string{
	"Ref", "Fn::And", "Fn::Contains", "Fn::EachMemberEquals", "Fn::EachMemberIn", "Fn::Equals",
	"Fn::Not", "Fn::Or", "Fn::RefAll", "Fn::ValueOf", "Fn::ValueOfAll",
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	path := "template.yaml"
	if len(args) > 0 {
		path = args[0]
	}
	t, err := samtemplate.Load(path)
	if err != nil {
		fmt.Fprintln(stderr, "rules-check:", err)
		return 2
	}
	rules, problems := Check(t)
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s: %s\n", path, p)
	}
	if len(problems) > 0 {
		return 1
	}
	fmt.Fprintf(stdout, "rules-check: %s: %d rule(s) use only the rule functions\n", path, rules)
	return 0
}

// Check returns how many rules the template has and, for each use of a
// function CloudFormation does not allow in Rules, a problem naming the
// rule, where in it, and the function.
func Check(t *samtemplate.Template) (int, []string) {
	var problems []string
	names := samtemplate.Keys(t.Rules)
	for _, name := range names {
		rule := samtemplate.Get(t.Rules, name)
		if rule == nil || rule.Kind != yaml.MappingNode {
			problems = append(problems, fmt.Sprintf("rule %s: not a mapping", name))
			continue
		}
		if c := samtemplate.Get(rule, "RuleCondition"); c != nil {
			problems = append(problems, badFunctions(name, "RuleCondition", c)...)
		}
		asserts := samtemplate.Get(rule, "Assertions")
		if asserts == nil || asserts.Kind != yaml.SequenceNode {
			problems = append(problems, fmt.Sprintf("rule %s: Assertions must be a list", name))
			continue
		}
		for i, a := range asserts.Content {
			n := samtemplate.Get(a, "Assert")
			if n == nil {
				problems = append(problems, fmt.Sprintf("rule %s: Assertions[%d] has no Assert", name, i))
				continue
			}
			problems = append(problems, badFunctions(name, fmt.Sprintf("Assertions[%d].Assert", i), n)...)
		}
	}
	return len(names), problems
}

// badFunctions walks n and reports every function outside ruleFunctions.
func badFunctions(rule, where string, n *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if fn, _, ok := intrinsic(n); ok && !slices.Contains(ruleFunctions, fn) {
			out = append(out, fmt.Sprintf("rule %s: %s uses %s; CloudFormation allows only %s in Rules and refuses the template when it creates the change set",
				rule, where, fn, strings.Join(ruleFunctions, ", ")))
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// intrinsic is samtemplate.Intrinsic, which also names the Condition
// function (not allowed in Rules either).
func intrinsic(n *yaml.Node) (string, *yaml.Node, bool) {
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "Condition" {
		return "Condition", n.Content[1], true
	}
	return samtemplate.Intrinsic(n)
}
