// Package expression builds DynamoDB expressions (condition, filter, key
// condition, update and projection) with their placeholders: every
// attribute name is written #name (or #n<i> when it is not a plain
// identifier) and every value :v<i>, so that no reserved word or value
// needs escaping by hand. The builders are values: combining them never
// changes the ones combined.
//
//	cond := expression.Name("state").Equal(expression.Value("working")).
//		And(expression.AttributeExists(expression.Name("PK")))
//	e, err := expression.NewBuilder().WithCondition(cond).Build()
//	// e.Condition(): (#state = :v0) AND (attribute_exists (#PK))
package expression

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// renderer collects the placeholders of one expression set.
type renderer struct {
	names  map[string]string // placeholder -> attribute name
	byName map[string]string // attribute name -> placeholder
	values map[string]dynamodb.AttributeValue
}

func (r *renderer) name(n string) string {
	if p, ok := r.byName[n]; ok {
		return p
	}
	p := "#" + n
	for i := len(r.names); !plain(n) || r.names[p] != ""; i++ {
		// A name that is no identifier, or whose placeholder another
		// name took (#n0 of an earlier one): a numbered placeholder.
		if p = "#n" + strconv.Itoa(i); r.names[p] == "" {
			break
		}
	}
	r.names[p] = n
	r.byName[n] = p
	return p
}

func (r *renderer) value(v any) (string, error) {
	av, err := dynamodb.Marshal(v)
	if err != nil {
		return "", err
	}
	p := ":v" + strconv.Itoa(len(r.values))
	r.values[p] = av
	return p, nil
}

// plain reports whether n can follow # in a placeholder.
func plain(n string) bool {
	if n == "" {
		return false
	}
	for _, c := range n {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// OperandBuilder is an operand of a comparison or of SET: an attribute
// (Name), a value (Value), a size (Size) or a computed value (ListAppend,
// IfNotExists, Plus).
type OperandBuilder interface {
	render(r *renderer) (string, error)
}

// NameBuilder is an attribute, by its path: names separated by '.', each
// followed by list indexes ([0]).
type NameBuilder struct{ name string }

// Name is the attribute at path name.
func Name(name string) NameBuilder { return NameBuilder{name: name} }

func (n NameBuilder) render(r *renderer) (string, error) {
	if n.name == "" {
		return "", errors.New("expression: an attribute name is empty")
	}
	parts := strings.Split(n.name, ".")
	for i, part := range parts {
		base, index, _ := strings.Cut(part, "[")
		if base == "" {
			return "", fmt.Errorf("expression: attribute path %q has an empty name", n.name)
		}
		if index != "" {
			index = "[" + index
		}
		parts[i] = r.name(base) + index
	}
	return strings.Join(parts, "."), nil
}

// ValueBuilder is a value, encoded with dynamodb.Marshal (an
// AttributeValue is taken as it is).
type ValueBuilder struct{ value any }

// Value is the value v.
func Value(v any) ValueBuilder { return ValueBuilder{value: v} }

func (v ValueBuilder) render(r *renderer) (string, error) { return r.value(v.value) }

// SizeBuilder is the size of an attribute: a string's or binary's length,
// a set's, list's or map's number of elements.
type SizeBuilder struct{ name NameBuilder }

// Size is the size of the attribute n.
func Size(n NameBuilder) SizeBuilder { return SizeBuilder{name: n} }

func (s SizeBuilder) render(r *renderer) (string, error) {
	n, err := s.name.render(r)
	return "size (" + n + ")", err
}

// SetValueBuilder is a value computed by SET.
type SetValueBuilder struct {
	format   string
	operands []OperandBuilder
}

func (s SetValueBuilder) render(r *renderer) (string, error) {
	return format(r, s.format, s.operands...)
}

// ListAppend is list a followed by list b.
func ListAppend(a, b OperandBuilder) SetValueBuilder {
	return SetValueBuilder{format: "list_append(%s, %s)", operands: []OperandBuilder{a, b}}
}

// IfNotExists is the attribute n, or v when the item has none.
func IfNotExists(n NameBuilder, v OperandBuilder) SetValueBuilder {
	return SetValueBuilder{format: "if_not_exists(%s, %s)", operands: []OperandBuilder{n, v}}
}

// Plus is a + b.
func Plus(a, b OperandBuilder) SetValueBuilder {
	return SetValueBuilder{format: "%s + %s", operands: []OperandBuilder{a, b}}
}

// format renders the operands into f's %s.
func format(r *renderer, f string, operands ...OperandBuilder) (string, error) {
	args := make([]any, len(operands))
	for i, o := range operands {
		if o == nil {
			return "", errors.New("expression: an operand is nil")
		}
		s, err := o.render(r)
		if err != nil {
			return "", err
		}
		args[i] = s
	}
	return fmt.Sprintf(f, args...), nil
}

// ConditionBuilder is a condition: of a write (WithCondition) or a filter
// of a Query (WithFilter).
type ConditionBuilder struct {
	format   string
	operands []OperandBuilder
	// parts are the conditions AND or OR joins, or that NOT negates.
	parts []ConditionBuilder
	join  string
}

func compare(op string, a OperandBuilder, b OperandBuilder) ConditionBuilder {
	return ConditionBuilder{format: "%s " + op + " %s", operands: []OperandBuilder{a, b}}
}

// Equal is n = v.
func (n NameBuilder) Equal(v OperandBuilder) ConditionBuilder { return compare("=", n, v) }

// NotEqual is n <> v.
func (n NameBuilder) NotEqual(v OperandBuilder) ConditionBuilder { return compare("<>", n, v) }

// LessThan is n < v.
func (n NameBuilder) LessThan(v OperandBuilder) ConditionBuilder { return compare("<", n, v) }

// LessThanEqual is n <= v.
func (n NameBuilder) LessThanEqual(v OperandBuilder) ConditionBuilder { return compare("<=", n, v) }

// GreaterThan is n > v.
func (n NameBuilder) GreaterThan(v OperandBuilder) ConditionBuilder { return compare(">", n, v) }

// GreaterThanEqual is n >= v.
func (n NameBuilder) GreaterThanEqual(v OperandBuilder) ConditionBuilder {
	return compare(">=", n, v)
}

// Between is low <= n <= high.
func (n NameBuilder) Between(low, high OperandBuilder) ConditionBuilder {
	return ConditionBuilder{format: "%s BETWEEN %s AND %s", operands: []OperandBuilder{n, low, high}}
}

// In is n equal to one of the values.
func (n NameBuilder) In(first OperandBuilder, more ...OperandBuilder) ConditionBuilder {
	f := "%s IN (%s" + strings.Repeat(", %s", len(more)) + ")"
	return ConditionBuilder{format: f, operands: append([]OperandBuilder{n, first}, more...)}
}

// BeginsWith is n starting with prefix.
func (n NameBuilder) BeginsWith(prefix string) ConditionBuilder {
	return ConditionBuilder{format: "begins_with (%s, %s)", operands: []OperandBuilder{n, Value(prefix)}}
}

// Equal is size = v.
func (s SizeBuilder) Equal(v OperandBuilder) ConditionBuilder { return compare("=", s, v) }

// LessThan is size < v.
func (s SizeBuilder) LessThan(v OperandBuilder) ConditionBuilder { return compare("<", s, v) }

// LessThanEqual is size <= v.
func (s SizeBuilder) LessThanEqual(v OperandBuilder) ConditionBuilder { return compare("<=", s, v) }

// GreaterThan is size > v.
func (s SizeBuilder) GreaterThan(v OperandBuilder) ConditionBuilder { return compare(">", s, v) }

// GreaterThanEqual is size >= v.
func (s SizeBuilder) GreaterThanEqual(v OperandBuilder) ConditionBuilder {
	return compare(">=", s, v)
}

// AttributeExists is the item having the attribute n.
func AttributeExists(n NameBuilder) ConditionBuilder {
	return ConditionBuilder{format: "attribute_exists (%s)", operands: []OperandBuilder{n}}
}

// AttributeNotExists is the item not having the attribute n.
func AttributeNotExists(n NameBuilder) ConditionBuilder {
	return ConditionBuilder{format: "attribute_not_exists (%s)", operands: []OperandBuilder{n}}
}

// Contains is the string n containing v, or the set or list n holding v.
func Contains(n NameBuilder, v any) ConditionBuilder {
	return ConditionBuilder{format: "contains (%s, %s)", operands: []OperandBuilder{n, Value(v)}}
}

// Not is the negation of c.
func Not(c ConditionBuilder) ConditionBuilder {
	return ConditionBuilder{join: "NOT", parts: []ConditionBuilder{c}}
}

// And is c and every other.
func (c ConditionBuilder) And(other ConditionBuilder, more ...ConditionBuilder) ConditionBuilder {
	return ConditionBuilder{join: "AND", parts: append([]ConditionBuilder{c, other}, more...)}
}

// Or is c or any other.
func (c ConditionBuilder) Or(other ConditionBuilder, more ...ConditionBuilder) ConditionBuilder {
	return ConditionBuilder{join: "OR", parts: append([]ConditionBuilder{c, other}, more...)}
}

func (c ConditionBuilder) build(r *renderer) (string, error) {
	switch c.join {
	case "":
		if c.format == "" {
			return "", errors.New("expression: a condition is empty")
		}
		return format(r, c.format, c.operands...)
	case "NOT":
		s, err := c.parts[0].build(r)
		return "NOT (" + s + ")", err
	}
	parts := make([]string, len(c.parts))
	for i, p := range c.parts {
		s, err := p.build(r)
		if err != nil {
			return "", err
		}
		parts[i] = "(" + s + ")"
	}
	return strings.Join(parts, " "+c.join+" "), nil
}

// KeyBuilder is a key attribute of a key condition.
type KeyBuilder struct{ name NameBuilder }

// Key is the key attribute name.
func Key(name string) KeyBuilder { return KeyBuilder{name: Name(name)} }

// KeyConditionBuilder is the key condition of a Query: the partition key's
// value, and possibly a condition on the sort key.
type KeyConditionBuilder struct{ conds []ConditionBuilder }

func keyCond(c ConditionBuilder) KeyConditionBuilder {
	return KeyConditionBuilder{conds: []ConditionBuilder{c}}
}

// Equal is k = v.
func (k KeyBuilder) Equal(v ValueBuilder) KeyConditionBuilder { return keyCond(k.name.Equal(v)) }

// LessThan is k < v.
func (k KeyBuilder) LessThan(v ValueBuilder) KeyConditionBuilder { return keyCond(k.name.LessThan(v)) }

// LessThanEqual is k <= v.
func (k KeyBuilder) LessThanEqual(v ValueBuilder) KeyConditionBuilder {
	return keyCond(k.name.LessThanEqual(v))
}

// GreaterThan is k > v.
func (k KeyBuilder) GreaterThan(v ValueBuilder) KeyConditionBuilder {
	return keyCond(k.name.GreaterThan(v))
}

// GreaterThanEqual is k >= v.
func (k KeyBuilder) GreaterThanEqual(v ValueBuilder) KeyConditionBuilder {
	return keyCond(k.name.GreaterThanEqual(v))
}

// Between is low <= k <= high.
func (k KeyBuilder) Between(low, high ValueBuilder) KeyConditionBuilder {
	return keyCond(k.name.Between(low, high))
}

// BeginsWith is k starting with prefix.
func (k KeyBuilder) BeginsWith(prefix string) KeyConditionBuilder {
	return keyCond(k.name.BeginsWith(prefix))
}

// And is the partition key's condition k and the sort key's other.
func (k KeyConditionBuilder) And(other KeyConditionBuilder) KeyConditionBuilder {
	return KeyConditionBuilder{conds: append(append([]ConditionBuilder(nil), k.conds...), other.conds...)}
}

func (k KeyConditionBuilder) build(r *renderer) (string, error) {
	switch len(k.conds) {
	case 1:
		return k.conds[0].build(r)
	case 2:
		return ConditionBuilder.And(k.conds[0], k.conds[1]).build(r)
	}
	return "", fmt.Errorf("expression: a key condition has %d parts, not one or two", len(k.conds))
}

// UpdateBuilder is an update: its SET, REMOVE, ADD and DELETE actions.
type UpdateBuilder struct{ actions []action }

type action struct {
	kind    string // SET, REMOVE, ADD, DELETE
	format  string
	operand []OperandBuilder
}

func (u UpdateBuilder) with(a action) UpdateBuilder {
	return UpdateBuilder{actions: append(append([]action(nil), u.actions...), a)}
}

// Set sets attribute n to v.
func Set(n NameBuilder, v OperandBuilder) UpdateBuilder { return UpdateBuilder{}.Set(n, v) }

// Remove removes attribute n.
func Remove(n NameBuilder) UpdateBuilder { return UpdateBuilder{}.Remove(n) }

// Add adds v to the number n, or the elements of v to the set n.
func Add(n NameBuilder, v ValueBuilder) UpdateBuilder { return UpdateBuilder{}.Add(n, v) }

// Delete deletes the elements of v from the set n.
func Delete(n NameBuilder, v ValueBuilder) UpdateBuilder { return UpdateBuilder{}.Delete(n, v) }

// Set sets attribute n to v.
func (u UpdateBuilder) Set(n NameBuilder, v OperandBuilder) UpdateBuilder {
	return u.with(action{kind: "SET", format: "%s = %s", operand: []OperandBuilder{n, v}})
}

// Remove removes attribute n.
func (u UpdateBuilder) Remove(n NameBuilder) UpdateBuilder {
	return u.with(action{kind: "REMOVE", format: "%s", operand: []OperandBuilder{n}})
}

// Add adds v to the number n, or the elements of v to the set n.
func (u UpdateBuilder) Add(n NameBuilder, v ValueBuilder) UpdateBuilder {
	return u.with(action{kind: "ADD", format: "%s %s", operand: []OperandBuilder{n, v}})
}

// Delete deletes the elements of v from the set n.
func (u UpdateBuilder) Delete(n NameBuilder, v ValueBuilder) UpdateBuilder {
	return u.with(action{kind: "DELETE", format: "%s %s", operand: []OperandBuilder{n, v}})
}

func (u UpdateBuilder) build(r *renderer) (string, error) {
	if len(u.actions) == 0 {
		return "", errors.New("expression: an update has no action")
	}
	var clauses []string
	for _, kind := range []string{"SET", "REMOVE", "ADD", "DELETE"} {
		var parts []string
		for _, a := range u.actions {
			if a.kind != kind {
				continue
			}
			s, err := format(r, a.format, a.operand...)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		if len(parts) > 0 {
			clauses = append(clauses, kind+" "+strings.Join(parts, ", "))
		}
	}
	return strings.Join(clauses, "\n"), nil
}

// ProjectionBuilder lists the attributes a read returns.
type ProjectionBuilder struct{ names []NameBuilder }

// NamesList is the projection of the attributes names.
func NamesList(first NameBuilder, more ...NameBuilder) ProjectionBuilder {
	return ProjectionBuilder{names: append([]NameBuilder{first}, more...)}
}

func (p ProjectionBuilder) build(r *renderer) (string, error) {
	parts := make([]string, len(p.names))
	for i, n := range p.names {
		s, err := n.render(r)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ", "), nil
}

// Builder gathers the expressions of one request, which share their
// placeholders.
type Builder struct {
	condition, filter *ConditionBuilder
	keyCondition      *KeyConditionBuilder
	update            *UpdateBuilder
	projection        *ProjectionBuilder
}

// NewBuilder returns an empty Builder.
func NewBuilder() Builder { return Builder{} }

// WithCondition sets the condition of a write.
func (b Builder) WithCondition(c ConditionBuilder) Builder { b.condition = &c; return b }

// WithFilter sets the filter of a Query.
func (b Builder) WithFilter(c ConditionBuilder) Builder { b.filter = &c; return b }

// WithKeyCondition sets the key condition of a Query.
func (b Builder) WithKeyCondition(k KeyConditionBuilder) Builder { b.keyCondition = &k; return b }

// WithUpdate sets the update of an UpdateItem.
func (b Builder) WithUpdate(u UpdateBuilder) Builder { b.update = &u; return b }

// WithProjection sets the attributes a read returns.
func (b Builder) WithProjection(p ProjectionBuilder) Builder { b.projection = &p; return b }

// Expression is what Build wrote: each expression (nil when not set) and
// the placeholders they share.
type Expression struct {
	condition, filter, keyCondition, update, projection *string
	names                                               map[string]string
	values                                              map[string]dynamodb.AttributeValue
}

// Build writes the expressions set; an error when none is, or when one
// holds an empty name or a value that does not encode.
func (b Builder) Build() (Expression, error) {
	r := &renderer{names: map[string]string{}, byName: map[string]string{}, values: map[string]dynamodb.AttributeValue{}}
	var e Expression
	type part struct {
		set   bool
		build func(*renderer) (string, error)
		out   **string
		what  string
	}
	parts := []part{
		{b.keyCondition != nil, func(r *renderer) (string, error) { return b.keyCondition.build(r) }, &e.keyCondition, "key condition"},
		{b.condition != nil, func(r *renderer) (string, error) { return b.condition.build(r) }, &e.condition, "condition"},
		{b.filter != nil, func(r *renderer) (string, error) { return b.filter.build(r) }, &e.filter, "filter"},
		{b.update != nil, func(r *renderer) (string, error) { return b.update.build(r) }, &e.update, "update"},
		{b.projection != nil, func(r *renderer) (string, error) { return b.projection.build(r) }, &e.projection, "projection"},
	}
	built := false
	for _, p := range parts {
		if !p.set {
			continue
		}
		built = true
		s, err := p.build(r)
		if err != nil {
			return Expression{}, fmt.Errorf("%s: %w", p.what, err)
		}
		*p.out = &s
	}
	if !built {
		return Expression{}, errors.New("expression: no expression to build")
	}
	if len(r.names) > 0 {
		e.names = r.names
	}
	if len(r.values) > 0 {
		e.values = r.values
	}
	return e, nil
}

// Condition is the condition expression, nil when none was set.
func (e Expression) Condition() *string { return e.condition }

// Filter is the filter expression, nil when none was set.
func (e Expression) Filter() *string { return e.filter }

// KeyCondition is the key condition expression, nil when none was set.
func (e Expression) KeyCondition() *string { return e.keyCondition }

// Update is the update expression, nil when none was set.
func (e Expression) Update() *string { return e.update }

// Projection is the projection expression, nil when none was set.
func (e Expression) Projection() *string { return e.projection }

// Names are the attribute name placeholders (ExpressionAttributeNames),
// nil when there are none.
func (e Expression) Names() map[string]string { return e.names }

// Values are the value placeholders (ExpressionAttributeValues), nil when
// there are none.
func (e Expression) Values() map[string]dynamodb.AttributeValue { return e.values }
