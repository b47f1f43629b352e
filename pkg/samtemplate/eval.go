package samtemplate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NoValue is what Eval returns for AWS::NoValue: the property, list item or
// map entry it is in does not exist.
var NoValue = &struct{ noValue bool }{true}

// Evaluator evaluates intrinsic functions as CloudFormation does for one
// set of parameter values, so that tests can see what a deployment would
// get (a policy's ARNs, an assertion's outcome). Resources evaluate to
// stand-ins: Ref X is "X", GetAtt X.Attr is "X.Attr".
type Evaluator struct {
	// Params are the parameter values (defaults already applied; lists
	// joined by commas) and pseudo parameters (AWS::Region, ...).
	Params map[string]string
	// Conditions are the template's Conditions section.
	Conditions *yaml.Node
	// ListParams are the parameters of list types (CommaDelimitedList,
	// List<...>): Ref gives a list.
	ListParams map[string]bool
}

// NewEvaluator returns an evaluator for a template (its Root) with the
// parameters' defaults, then overrides, in region us-east-1, account
// 123456789012, partition aws, stack a2a-lambda.
func NewEvaluator(root *yaml.Node, overrides map[string]string) *Evaluator {
	e := &Evaluator{
		Params: map[string]string{
			"AWS::Partition": "aws", "AWS::Region": "us-east-1", "AWS::AccountId": "123456789012",
			"AWS::StackName": "a2a-lambda", "AWS::URLSuffix": "amazonaws.com",
			"AWS::StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/a2a-lambda/3e9f0c80-1a2b-11f0-9c4d-0a1b2c3d4e5f",
		},
		Conditions: Get(root, "Conditions"),
		ListParams: map[string]bool{},
	}
	params := Get(root, "Parameters")
	for _, name := range Keys(params) {
		p := Get(params, name)
		if d, ok := Scalar(Get(p, "Default")); ok {
			e.Params[name] = d
		}
		if typ, _ := Scalar(Get(p, "Type")); strings.Contains(typ, "List") {
			e.ListParams[name] = true
		}
	}
	for k, v := range overrides {
		e.Params[k] = v
	}
	return e
}

// Eval evaluates n: a string, []any, map[string]any, bool, or NoValue.
func (e *Evaluator) Eval(n *yaml.Node) (any, error) {
	if n == nil {
		return nil, fmt.Errorf("missing value")
	}
	if fn, arg, ok := Intrinsic(n); ok {
		return e.call(fn, arg)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		var out []any
		for _, c := range n.Content {
			v, err := e.Eval(c)
			if err != nil {
				return nil, err
			}
			if v != NoValue {
				out = append(out, v)
			}
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := e.Eval(n.Content[i+1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n.Content[i].Value, err)
			}
			if v != NoValue {
				out[n.Content[i].Value] = v
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: cannot evaluate", n.Line)
}

// args returns the items of an intrinsic's argument list; a short-form
// tag's node is its own argument.
func args(arg *yaml.Node) []*yaml.Node {
	if arg.Kind == yaml.SequenceNode {
		return arg.Content
	}
	return []*yaml.Node{arg}
}

// untagged returns n without its short-form tag, so that evaluating it
// reads its value rather than calling the function again.
func untagged(n *yaml.Node) *yaml.Node {
	c := *n
	c.Tag = ""
	if n.Kind == yaml.ScalarNode {
		c.Tag = "!!str"
	}
	return &c
}

var subVar = regexp.MustCompile(`\$\{([^}!]+)\}`)

func (e *Evaluator) call(fn string, arg *yaml.Node) (any, error) {
	if strings.HasPrefix(arg.Tag, "!") && !strings.HasPrefix(arg.Tag, "!!") {
		arg = untagged(arg)
	}
	a := args(arg)
	str := func(i int) (string, error) {
		if i >= len(a) {
			return "", fmt.Errorf("%s: argument %d is missing", fn, i)
		}
		v, err := e.Eval(a[i])
		if err != nil {
			return "", err
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s: argument %d is %T, not a string", fn, i, v)
		}
		return s, nil
	}
	switch fn {
	case "Ref":
		name := arg.Value
		if name == "AWS::NoValue" {
			return NoValue, nil
		}
		if v, ok := e.Params[name]; ok {
			if e.ListParams[name] {
				var out []any
				for _, s := range strings.Split(v, ",") {
					out = append(out, s)
				}
				return out, nil
			}
			return v, nil
		}
		return name, nil
	case "Fn::GetAtt":
		if arg.Kind == yaml.ScalarNode {
			return arg.Value, nil
		}
		var parts []string
		for _, c := range a {
			parts = append(parts, c.Value)
		}
		return strings.Join(parts, "."), nil
	case "Fn::Sub":
		tmpl, err := str(0)
		if err != nil {
			return nil, err
		}
		vars := map[string]string{}
		if len(a) > 1 {
			for _, k := range Keys(a[1]) {
				v, err := e.Eval(Get(a[1], k))
				if err != nil {
					return nil, err
				}
				vars[k] = fmt.Sprint(v)
			}
		}
		return subVar.ReplaceAllStringFunc(tmpl, func(m string) string {
			name := m[2 : len(m)-1]
			if v, ok := vars[name]; ok {
				return v
			}
			if v, ok := e.Params[name]; ok {
				return v
			}
			return name
		}), nil
	case "Fn::Join":
		sep, err := str(0)
		if err != nil {
			return nil, err
		}
		v, err := e.Eval(a[1])
		if err != nil {
			return nil, err
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("Fn::Join: %T is not a list", v)
		}
		var parts []string
		for _, x := range list {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, sep), nil
	case "Fn::Split":
		sep, err := str(0)
		if err != nil {
			return nil, err
		}
		s, err := str(1)
		if err != nil {
			return nil, err
		}
		var out []any
		for _, p := range strings.Split(s, sep) {
			out = append(out, p)
		}
		return out, nil
	case "Fn::Select":
		is, err := str(0)
		if err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(is)
		if err != nil {
			return nil, fmt.Errorf("Fn::Select: index %q", is)
		}
		v, err := e.Eval(a[1])
		if err != nil {
			return nil, err
		}
		list, ok := v.([]any)
		if !ok || i < 0 || i >= len(list) {
			return nil, fmt.Errorf("Fn::Select: index %d out of %v", i, v)
		}
		return list[i], nil
	case "Fn::If":
		if len(a) != 3 {
			return nil, fmt.Errorf("Fn::If needs 3 arguments")
		}
		ok, err := e.Condition(a[0].Value)
		if err != nil {
			return nil, err
		}
		if ok {
			return e.Eval(a[1])
		}
		return e.Eval(a[2])
	case "Fn::Equals":
		if len(a) != 2 {
			return nil, fmt.Errorf("Fn::Equals needs 2 arguments")
		}
		x, err := e.Eval(a[0])
		if err != nil {
			return nil, err
		}
		y, err := e.Eval(a[1])
		if err != nil {
			return nil, err
		}
		return fmt.Sprint(x) == fmt.Sprint(y), nil
	case "Fn::Not", "Fn::And", "Fn::Or":
		var vals []bool
		for _, c := range a {
			v, err := e.Eval(c)
			if err != nil {
				return nil, err
			}
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s: %T is not a condition", fn, v)
			}
			vals = append(vals, b)
		}
		switch fn {
		case "Fn::Not":
			return !vals[0], nil
		case "Fn::And":
			for _, b := range vals {
				if !b {
					return false, nil
				}
			}
			return true, nil
		default:
			for _, b := range vals {
				if b {
					return true, nil
				}
			}
			return false, nil
		}
	case "Fn::EachMemberEquals":
		v, err := e.Eval(a[0])
		if err != nil {
			return nil, err
		}
		want, err := str(1)
		if err != nil {
			return nil, err
		}
		list, _ := v.([]any)
		for _, x := range list {
			if fmt.Sprint(x) != want {
				return false, nil
			}
		}
		return true, nil
	case "Condition":
		return e.Condition(arg.Value)
	}
	return nil, fmt.Errorf("%s is not supported by the evaluator", fn)
}

// Condition evaluates the named condition.
func (e *Evaluator) Condition(name string) (bool, error) {
	n := Get(e.Conditions, name)
	if n == nil {
		return false, fmt.Errorf("no condition %q", name)
	}
	v, err := e.Eval(n)
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("condition %s is %T", name, v)
	}
	return b, nil
}
