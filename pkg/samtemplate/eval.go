package samtemplate

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
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
// stand-ins: Ref X is "X", GetAtt X.Attr is "X.Attr". A name that is
// neither a parameter with a value nor a resource is an error, as it is
// for CloudFormation.
type Evaluator struct {
	// Params are the parameter values (defaults already applied; lists
	// joined by commas) and pseudo parameters (AWS::Region, ...).
	Params map[string]string
	// Conditions are the template's Conditions section.
	Conditions *yaml.Node
	// ListParams are the parameters of list types (CommaDelimitedList,
	// List<...>): Ref gives a list.
	ListParams map[string]bool
	// Resources are the logical ids Ref and GetAtt may name; nil takes
	// any name that is not a parameter as a resource.
	Resources map[string]bool
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
		Resources:  map[string]bool{},
	}
	for _, name := range Keys(Get(root, "Resources")) {
		e.Resources[name] = true
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
	if fn, arg, ok := intrinsic(n); ok {
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

// args returns the items of an intrinsic's argument list; an argument that
// is not a plain list (a string, a mapping, another function) is the only
// one.
func args(arg *yaml.Node) []*yaml.Node {
	if _, _, fn := Intrinsic(arg); arg.Kind == yaml.SequenceNode && !fn {
		return arg.Content
	}
	return []*yaml.Node{arg}
}

// intrinsic is Intrinsic with the short form's argument untagged, so that
// it reads as the argument, not as the function again.
func intrinsic(n *yaml.Node) (string, *yaml.Node, bool) {
	fn, arg, ok := Intrinsic(n)
	if ok && arg == n {
		arg = untagged(n)
	}
	return fn, arg, ok
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

// subVar is a ${Name}, ${Resource.Attr} or ${!Literal} in a Fn::Sub string.
var subVar = regexp.MustCompile(`\$\{([^}]+)\}`)

// kind names what a node is, for errors.
func kind(n *yaml.Node) string {
	if fn, _, ok := Intrinsic(n); ok {
		return fn
	}
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a string"
}

// name returns the logical id or condition name n gives, which must be a
// plain string.
func name(n *yaml.Node) (string, error) {
	if s, ok := Scalar(n); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s, not a name", kind(n))
}

// arity refuses an argument count outside [lo, hi].
func arity(fn string, a []*yaml.Node, lo, hi int) error {
	switch {
	case len(a) >= lo && len(a) <= hi:
		return nil
	case lo == 1 && hi == 1:
		return fmt.Errorf("%s needs 1 argument, not %d", fn, len(a))
	case lo == hi:
		return fmt.Errorf("%s needs %d arguments, not %d", fn, lo, len(a))
	case hi == lo+1:
		return fmt.Errorf("%s needs %d or %d arguments, not %d", fn, lo, hi, len(a))
	}
	return fmt.Errorf("%s needs %d to %d arguments, not %d", fn, lo, hi, len(a))
}

// ref evaluates Ref name: a parameter's value, or a resource's stand-in.
func (e *Evaluator) ref(name string) (any, error) {
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
	if e.Resources == nil || e.Resources[name] {
		return name, nil
	}
	return nil, fmt.Errorf("Ref %s: not a parameter or a resource", name)
}

// getAtt evaluates GetAtt resource.attr to its stand-in.
func (e *Evaluator) getAtt(resource, attr string) (string, error) {
	if e.Resources != nil && !e.Resources[resource] {
		return "", fmt.Errorf("%s is not a resource", resource)
	}
	if attr == "" {
		return "", fmt.Errorf("%s names no attribute", resource)
	}
	return resource + "." + attr, nil
}

func (e *Evaluator) call(fn string, arg *yaml.Node) (any, error) {
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
	list := func(i int) ([]any, error) {
		v, err := e.Eval(a[i])
		if err != nil {
			return nil, err
		}
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: %T is not a list", fn, v)
		}
		return l, nil
	}
	switch fn {
	case "Ref":
		name, err := name(arg)
		if err != nil {
			return nil, fmt.Errorf("Ref: the argument is %w", err)
		}
		return e.ref(name)
	case "Fn::GetAtt":
		if arg.Kind == yaml.ScalarNode {
			resource, attr, _ := strings.Cut(arg.Value, ".")
			return wrap(fn)(e.getAtt(resource, attr))
		}
		if err := arity(fn, a, 2, 2); err != nil {
			return nil, err
		}
		resource, err := name(a[0])
		if err != nil {
			return nil, fmt.Errorf("Fn::GetAtt: argument 0 is %w", err)
		}
		attr, err := str(1)
		if err != nil {
			return nil, err
		}
		return wrap(fn)(e.getAtt(resource, attr))
	case "Fn::Sub":
		return e.sub(a)
	case "Fn::Join":
		if err := arity(fn, a, 2, 2); err != nil {
			return nil, err
		}
		sep, err := str(0)
		if err != nil {
			return nil, err
		}
		l, err := list(1)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, x := range l {
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
		if err := arity(fn, a, 2, 2); err != nil {
			return nil, err
		}
		is, err := str(0)
		if err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(is)
		if err != nil {
			return nil, fmt.Errorf("Fn::Select: index %q", is)
		}
		l, err := list(1)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(l) {
			return nil, fmt.Errorf("Fn::Select: index %d out of %v", i, l)
		}
		return l[i], nil
	case "Fn::If":
		if err := arity(fn, a, 3, 3); err != nil {
			return nil, err
		}
		cond, err := name(a[0])
		if err != nil {
			return nil, fmt.Errorf("Fn::If: argument 0 is %w", err)
		}
		ok, err := e.Condition(cond)
		if err != nil {
			return nil, err
		}
		if ok {
			return e.Eval(a[1])
		}
		return e.Eval(a[2])
	case "Fn::Equals":
		if err := arity(fn, a, 2, 2); err != nil {
			return nil, err
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
		lo, hi := 2, 10
		if fn == "Fn::Not" {
			lo, hi = 1, 1
		}
		if err := arity(fn, a, lo, hi); err != nil {
			return nil, err
		}
		var vals []bool
		for _, c := range a {
			v, err := e.operand(c)
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
			return !slices.Contains(vals, false), nil
		default:
			return slices.Contains(vals, true), nil
		}
	case "Fn::EachMemberEquals":
		if err := arity(fn, a, 2, 2); err != nil {
			return nil, err
		}
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		want, err := str(1)
		if err != nil {
			return nil, err
		}
		for _, x := range l {
			if fmt.Sprint(x) != want {
				return false, nil
			}
		}
		return true, nil
	case "Condition":
		cond, err := name(arg)
		if err != nil {
			return nil, fmt.Errorf("Condition: the argument is %w", err)
		}
		ok, err := e.Condition(cond)
		if err != nil {
			return nil, err
		}
		return ok, nil
	}
	return nil, fmt.Errorf("%s is not supported by the evaluator", fn)
}

// wrap prefixes a stand-in's error with the function's name.
func wrap(fn string) func(string, error) (any, error) {
	return func(s string, err error) (any, error) {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
		return s, nil
	}
}

// operand evaluates an operand of Fn::Not, Fn::And or Fn::Or, where
// {"Condition": Name} is the long form of !Condition Name.
func (e *Evaluator) operand(n *yaml.Node) (any, error) {
	if cond, ok := conditionName(n); ok {
		return e.Condition(cond)
	}
	return e.Eval(n)
}

// conditionName returns Name for {"Condition": Name}.
func conditionName(n *yaml.Node) (string, bool) {
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "Condition" {
		return Scalar(n.Content[1])
	}
	return "", false
}

// sub evaluates Fn::Sub's arguments: the string, and the variables.
func (e *Evaluator) sub(a []*yaml.Node) (any, error) {
	const fn = "Fn::Sub"
	if err := arity(fn, a, 1, 2); err != nil {
		return nil, err
	}
	v, err := e.Eval(a[0])
	if err != nil {
		return nil, err
	}
	tmpl, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s: argument 0 is %T, not a string", fn, v)
	}
	vars := map[string]string{}
	if len(a) > 1 {
		if a[1].Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: argument 1 is %s, not a mapping", fn, kind(a[1]))
		}
		for _, k := range Keys(a[1]) {
			v, err := e.Eval(Get(a[1], k))
			if err != nil {
				return nil, fmt.Errorf("%s: variable %s: %w", fn, k, err)
			}
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s: variable %s is %T, not a string", fn, k, v)
			}
			vars[k] = s
		}
	}
	var errs []error
	out := subVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := m[2 : len(m)-1]
		if lit, ok := strings.CutPrefix(name, "!"); ok {
			return "${" + lit + "}"
		}
		if v, ok := vars[name]; ok {
			return v
		}
		if v, ok := e.Params[name]; ok {
			return v
		}
		var err error
		if resource, attr, ok := strings.Cut(name, "."); ok {
			name, err = e.getAtt(resource, attr)
		} else if e.Resources != nil && !e.Resources[name] {
			err = errors.New("not a parameter or a resource")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", fn, m, err))
		}
		return name
	})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

// Condition evaluates the named condition.
func (e *Evaluator) Condition(name string) (bool, error) {
	n := Get(e.Conditions, name)
	if n == nil {
		return false, fmt.Errorf("no condition %q", name)
	}
	if cycle := e.cycle(name); cycle != nil {
		return false, fmt.Errorf("condition %s refers to itself: %s", name, strings.Join(cycle, " → "))
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

// cycle returns the conditions from name back to itself when name's
// definition depends on name (evaluating it would never end), or nil.
func (e *Evaluator) cycle(name string) []string {
	var path []string
	done := map[string]bool{}
	var visit func(string) []string
	visit = func(c string) []string {
		if i := slices.Index(path, c); i >= 0 {
			return append(slices.Clone(path[i:]), c)
		}
		if done[c] {
			return nil
		}
		path = append(path, c)
		for _, next := range conditionRefs(Get(e.Conditions, c), nil) {
			if cycle := visit(next); cycle != nil {
				return cycle
			}
		}
		path = path[:len(path)-1]
		done[c] = true
		return nil
	}
	return visit(name)
}

// conditionRefs appends the conditions n names (Condition, Fn::If) to refs.
func conditionRefs(n *yaml.Node, refs []string) []string {
	if n == nil {
		return refs
	}
	if c, ok := conditionName(n); ok {
		return append(refs, c)
	}
	if fn, arg, ok := intrinsic(n); ok {
		switch fn {
		case "Condition":
			return append(refs, arg.Value)
		case "Fn::If":
			if a := args(arg); len(a) > 0 && a[0].Kind == yaml.ScalarNode {
				refs = append(refs, a[0].Value)
			}
		}
	}
	for _, c := range n.Content {
		refs = conditionRefs(c, refs)
	}
	return refs
}
