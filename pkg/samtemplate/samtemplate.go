// Package samtemplate reads what the offline checks need from a SAM or
// CloudFormation template in YAML: resources, their properties, and the
// HTTP API's routes. CloudFormation's short tags (!Ref, !GetAtt, !Sub, !If)
// are kept as tagged YAML nodes, not resolved.
package samtemplate

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Template is a parsed template.
type Template struct {
	// Resources by logical id, and their ids in the template's order.
	Resources map[string]*Resource
	Order     []string
	// Globals is the Globals section, or nil.
	Globals *yaml.Node
	// Rules is the Rules section, or nil.
	Rules *yaml.Node
	// Root is the whole document (Parameters, Conditions, ...).
	Root *yaml.Node
}

// Resource is one resource.
type Resource struct {
	Name string
	Type string
	// Condition is the resource's Condition, or "".
	Condition  string
	Properties *yaml.Node
	Metadata   *yaml.Node
}

// Load reads and parses a template.
func Load(path string) (*Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse parses a template.
func Parse(b []byte) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a template: the document is not a mapping")
	}
	root := doc.Content[0]
	res := Get(root, "Resources")
	if res == nil || res.Kind != yaml.MappingNode {
		return nil, errors.New("not a template: no Resources")
	}
	t := &Template{Resources: map[string]*Resource{}, Globals: Get(root, "Globals"), Rules: Get(root, "Rules"), Root: root}
	lines := map[string]int{}
	for i := 0; i+1 < len(res.Content); i += 2 {
		name, body := res.Content[i].Value, res.Content[i+1]
		if line, dup := lines[name]; dup {
			return nil, fmt.Errorf("not a template: resource %s is declared twice (lines %d and %d)", name, line, res.Content[i].Line)
		}
		lines[name] = res.Content[i].Line
		typ, _ := Scalar(Get(body, "Type"))
		cond, _ := Scalar(Get(body, "Condition"))
		t.Resources[name] = &Resource{Name: name, Type: typ, Condition: cond, Properties: Get(body, "Properties"), Metadata: Get(body, "Metadata")}
		t.Order = append(t.Order, name)
	}
	return t, nil
}

// OfType returns the resources of a type, in the template's order.
func (t *Template) OfType(typ string) []*Resource {
	var out []*Resource
	for _, name := range t.Order {
		if r := t.Resources[name]; r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// Prop returns the property at path (nested mapping keys), or nil.
func (r *Resource) Prop(path ...string) *yaml.Node { return Get(r.Properties, path...) }

// Get returns the value at path (nested mapping keys) below n, or nil.
func Get(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

// Keys returns the keys of a mapping, in order.
func Keys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var keys []string
	for i := 0; i < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

// Scalar returns a plain scalar's value (no CloudFormation tag).
func Scalar(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return "", false
	}
	return n.Value, true
}

// Intrinsic returns the function and argument node of an intrinsic: the
// short form (!GetAtt X.Arn) or the long one ({"Fn::GetAtt": ...}, {Ref:
// X}). The function is named as in the long form ("Ref", "Fn::GetAtt").
func Intrinsic(n *yaml.Node) (string, *yaml.Node, bool) {
	if n == nil {
		return "", nil, false
	}
	if tag := n.Tag; strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") {
		fn := tag[1:]
		if fn != "Ref" && fn != "Condition" {
			fn = "Fn::" + fn
		}
		return fn, n, true
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		k := n.Content[0].Value
		if k == "Ref" || strings.HasPrefix(k, "Fn::") {
			return k, n.Content[1], true
		}
	}
	return "", nil, false
}

// RefTarget returns the logical id a !Ref or !GetAtt names.
func RefTarget(n *yaml.Node) (string, bool) {
	fn, arg, ok := Intrinsic(n)
	if !ok {
		return "", false
	}
	switch fn {
	case "Ref":
		return arg.Value, arg.Kind == yaml.ScalarNode
	case "Fn::GetAtt":
		if arg.Kind == yaml.ScalarNode {
			name, _, _ := strings.Cut(arg.Value, ".")
			return name, true
		}
		if arg.Kind == yaml.SequenceNode && len(arg.Content) > 0 {
			return arg.Content[0].Value, true
		}
	}
	return "", false
}

// Route is one route of an ApiGatewayV2 HTTP API declared as
// AWS::ApiGatewayV2::Route.
type Route struct {
	// Name is the route resource's logical id.
	Name string
	// Key is the route key, "GET /path".
	Key string
	// Function is the logical id of the function its integration invokes.
	Function string
	// Authorization is the authorization type when it is a plain value
	// (NONE, JWT), or the intrinsic that chooses it ("Fn::If").
	Authorization string
	// Authorizer is the logical id of the authorizer AuthorizerId names
	// (!Ref), or "".
	Authorizer string
	// Condition is the route resource's Condition, or "".
	Condition string
}

var subIntegration = regexp.MustCompile(`^integrations/\$\{([A-Za-z0-9]+)\}$`)

// Routes returns the HTTP API routes, following each route's Target to its
// integration and the integration's IntegrationUri to its function.
func (t *Template) Routes() ([]Route, error) {
	var out []Route
	var errs []error
	for _, r := range t.OfType("AWS::ApiGatewayV2::Route") {
		key, _ := Scalar(r.Prop("RouteKey"))
		rt := Route{Name: r.Name, Key: key, Condition: r.Condition}
		if fn, arg, ok := Intrinsic(r.Prop("AuthorizerId")); ok && fn == "Ref" {
			rt.Authorizer = arg.Value
		}
		if auth, ok := Scalar(r.Prop("AuthorizationType")); ok {
			rt.Authorization = auth
		} else if fn, _, ok := Intrinsic(r.Prop("AuthorizationType")); ok {
			rt.Authorization = fn
		}
		var m []string
		if fn, arg, ok := Intrinsic(r.Prop("Target")); ok && fn == "Fn::Sub" {
			m = subIntegration.FindStringSubmatch(arg.Value)
		}
		if m == nil {
			errs = append(errs, fmt.Errorf("route %s: Target is not !Sub 'integrations/${Integration}'", r.Name))
			continue
		}
		integ := t.Resources[m[1]]
		if integ == nil || integ.Type != "AWS::ApiGatewayV2::Integration" {
			errs = append(errs, fmt.Errorf("route %s: %s is not an integration", r.Name, m[1]))
			continue
		}
		var ok bool
		if rt.Function, ok = RefTarget(integ.Prop("IntegrationUri")); !ok {
			errs = append(errs, fmt.Errorf("route %s: integration %s does not name a function", r.Name, m[1]))
			continue
		}
		out = append(out, rt)
	}
	return out, errors.Join(errs...)
}
