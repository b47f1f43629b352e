// Package asl checks Amazon States Language definitions offline: the
// mistakes that AWS rejects only at deploy time (and that moto and cfn-lint
// accept), such as a Next that names no state.
package asl

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Definition is the part of a state machine definition the checks read.
type Definition struct {
	StartAt string           `json:"StartAt"`
	States  map[string]State `json:"States"`
}

// State is one state.
type State struct {
	Type    string   `json:"Type"`
	Next    string   `json:"Next"`
	End     bool     `json:"End"`
	Default string   `json:"Default"`
	Choices []Choice `json:"Choices"`
	Catch   []Catch  `json:"Catch"`
}

// Choice is one rule of a Choice state (the fields the checks read).
type Choice struct {
	Variable     string `json:"Variable"`
	StringEquals string `json:"StringEquals"`
	Next         string `json:"Next"`
}

// Catch is one error handler of a Task, Parallel or Map state.
type Catch struct {
	ErrorEquals []string `json:"ErrorEquals"`
	Next        string   `json:"Next"`
}

var stateTypes = []string{"Task", "Pass", "Choice", "Wait", "Succeed", "Fail", "Parallel", "Map"}

// substitution matches a ${Name} token of DefinitionSubstitutions.
var substitution = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// Tokens returns the names of the ${Name} tokens of a definition, sorted.
func Tokens(def []byte) []string {
	var names []string
	for _, m := range substitution.FindAllSubmatch(def, -1) {
		if n := string(m[1]); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Substitute replaces the ${Name} tokens of a definition as
// DefinitionSubstitutions does; a token without a value is an error.
func Substitute(def []byte, values map[string]string) ([]byte, error) {
	var missing []string
	out := substitution.ReplaceAllFunc(def, func(tok []byte) []byte {
		name := string(tok[2 : len(tok)-1])
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			return tok
		}
		return []byte(v)
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("asl: no substitution for %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// Check parses a (substituted) definition and returns every problem found,
// sorted, or nil.
func Check(def []byte) (*Definition, []string) {
	var d Definition
	if err := json.Unmarshal(def, &d); err != nil {
		return nil, []string{"not a valid definition: " + err.Error()}
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if toks := Tokens(def); len(toks) > 0 {
		add("unresolved substitution tokens: %s", strings.Join(toks, ", "))
	}
	if len(d.States) == 0 {
		add("States is empty")
	}
	problems = append(problems, unknownFields(def)...)
	exists := func(name string) bool { _, ok := d.States[name]; return ok }
	if d.StartAt == "" {
		add("StartAt is missing")
	} else if !exists(d.StartAt) {
		add("StartAt names %q, which is not a state", d.StartAt)
	}
	for name, s := range d.States {
		ref := func(field, target string) {
			if !exists(target) {
				add("state %q: %s names %q, which is not a state", name, field, target)
			}
		}
		if !slices.Contains(stateTypes, s.Type) {
			add("state %q: Type %q is not one of %s", name, s.Type, strings.Join(stateTypes, ", "))
			continue
		}
		switch s.Type {
		case "Choice":
			if len(s.Choices) == 0 {
				add("state %q: a Choice needs Choices", name)
			}
			for i, c := range s.Choices {
				if c.Next == "" {
					add("state %q: Choices[%d] has no Next", name, i)
				} else {
					ref(fmt.Sprintf("Choices[%d].Next", i), c.Next)
				}
			}
			if s.Default != "" {
				ref("Default", s.Default)
			}
		case "Succeed", "Fail":
			if s.Next != "" || s.End {
				add("state %q: a %s state ends the execution; it takes neither Next nor End", name, s.Type)
			}
		default:
			switch {
			case s.Next != "" && s.End:
				add("state %q: has both Next and End", name)
			case s.Next == "" && !s.End:
				add("state %q: has neither Next nor End", name)
			case s.Next != "":
				ref("Next", s.Next)
			}
		}
		for i, c := range s.Catch {
			if len(c.ErrorEquals) == 0 {
				add("state %q: Catch[%d] has no ErrorEquals", name, i)
			}
			ref(fmt.Sprintf("Catch[%d].Next", i), c.Next)
		}
	}
	for _, name := range unreachable(&d) {
		add("state %q cannot be reached from StartAt", name)
	}
	sort.Strings(problems)
	return &d, problems
}

// unreachable returns the states no path from StartAt enters, sorted.
// The fields a retrier and a catcher may have: Step Functions refuses a
// definition with any other (moto accepts it).
var (
	retrierFields = []string{"ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy"}
	catcherFields = []string{"ErrorEquals", "Next", "ResultPath", "Output", "Assign"}
)

// unknownFields reports the fields of retriers and catchers Step Functions
// does not know.
func unknownFields(def []byte) []string {
	var raw struct {
		States map[string]struct {
			Retry []map[string]json.RawMessage `json:"Retry"`
			Catch []map[string]json.RawMessage `json:"Catch"`
		} `json:"States"`
	}
	if err := json.Unmarshal(def, &raw); err != nil {
		return nil // Check reports it
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(raw.States)) {
		s := raw.States[name]
		for what, entries := range map[string][]map[string]json.RawMessage{"Retry": s.Retry, "Catch": s.Catch} {
			allowed := retrierFields
			if what == "Catch" {
				allowed = catcherFields
			}
			for i, e := range entries {
				for _, k := range slices.Sorted(maps.Keys(e)) {
					if !slices.Contains(allowed, k) {
						problems = append(problems, fmt.Sprintf("state %q: %s[%d] has %q, which Step Functions does not accept there", name, what, i, k))
					}
				}
			}
		}
	}
	return problems
}

func unreachable(d *Definition) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		s, ok := d.States[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		visit(s.Next)
		visit(s.Default)
		for _, c := range s.Choices {
			visit(c.Next)
		}
		for _, c := range s.Catch {
			visit(c.Next)
		}
	}
	visit(d.StartAt)
	var out []string
	for name := range d.States {
		if !seen[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Branches returns, for the Choice states that test variable, the values
// they route with StringEquals.
func (d *Definition) Branches(variable string) []string {
	var vals []string
	for _, s := range d.States {
		for _, c := range s.Choices {
			if c.Variable == variable && c.StringEquals != "" && !slices.Contains(vals, c.StringEquals) {
				vals = append(vals, c.StringEquals)
			}
		}
	}
	sort.Strings(vals)
	return vals
}
