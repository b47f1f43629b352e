package expression_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"
)

type av = dynamodb.AttributeValue

func s(v string) av { return &dynamodb.AttributeValueMemberS{Value: v} }
func n(v string) av { return &dynamodb.AttributeValueMemberN{Value: v} }

// Conditions and updates share their placeholders: one per attribute name
// (#name, or numbered when the name is no identifier), one per value; an
// update lists its SET actions, then REMOVE, ADD and DELETE.
func TestConditionAndUpdate(t *testing.T) {
	cond := expression.AttributeExists(expression.Name("state")).
		And(expression.Name("expiresAt").GreaterThan(expression.Value(int64(100)))).
		And(expression.Not(expression.Name("state").In(expression.Value("completed"), expression.Value("failed")))).
		Or(expression.Size(expression.Name("attempts")).LessThan(expression.Value(3)), expression.Contains(expression.Name("ids"), "c1"))
	upd := expression.Set(expression.Name("version"), expression.Value(4)).
		Set(expression.Name("attempts"), expression.ListAppend(expression.IfNotExists(expression.Name("attempts"), expression.Value(&dynamodb.AttributeValueMemberL{})), expression.Value([]string{"x"}))).
		Remove(expression.Name("lease-owner")).
		Add(expression.Name("ids"), expression.Value(&dynamodb.AttributeValueMemberSS{Value: []string{"c1"}})).
		Delete(expression.Name("old"), expression.Value(&dynamodb.AttributeValueMemberSS{Value: []string{"c0"}})).
		Set(expression.Name("n"), expression.Plus(expression.Name("n"), expression.Value(1)))
	e, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	require.NoError(t, err)
	assert.Equal(t, "(((attribute_exists (#state)) AND (#expiresAt > :v0)) AND (NOT (#state IN (:v1, :v2)))) OR (size (#attempts) < :v3) OR (contains (#ids, :v4))",
		aws.ToString(e.Condition()))
	assert.Equal(t, "SET #version = :v5, #attempts = list_append(if_not_exists(#attempts, :v6), :v7), #n = #n + :v8\nREMOVE #n6\nADD #ids :v9\nDELETE #old :v10",
		aws.ToString(e.Update()))
	assert.Equal(t, map[string]string{"#state": "state", "#expiresAt": "expiresAt", "#attempts": "attempts", "#ids": "ids", "#version": "version",
		"#n6": "lease-owner", "#old": "old", "#n": "n"}, e.Names())
	assert.Equal(t, map[string]av{":v0": n("100"), ":v1": s("completed"), ":v2": s("failed"), ":v3": n("3"), ":v4": s("c1"), ":v5": n("4"),
		":v6": &dynamodb.AttributeValueMemberL{}, ":v7": &dynamodb.AttributeValueMemberL{Value: []av{s("x")}},
		":v8": n("1"), ":v9": &dynamodb.AttributeValueMemberSS{Value: []string{"c1"}}, ":v10": &dynamodb.AttributeValueMemberSS{Value: []string{"c0"}}}, e.Values())
	assert.Nil(t, e.KeyCondition())
	assert.Nil(t, e.Filter())
	assert.Nil(t, e.Projection())
}

// A key condition names the partition and maybe a range of sort keys; a
// filter and a projection go with it.
func TestQueryExpressions(t *testing.T) {
	kc := expression.Key("PK").Equal(expression.Value("T#1")).And(expression.Key("SK").Between(expression.Value("A#"), expression.Value("H")))
	e, err := expression.NewBuilder().WithKeyCondition(kc).
		WithFilter(expression.Name("expiresAt").GreaterThanEqual(expression.Value(5))).
		WithProjection(expression.NamesList(expression.Name("PK"), expression.Name("SK"), expression.Name("attempts[0].at"))).Build()
	require.NoError(t, err)
	assert.Equal(t, "(#PK = :v0) AND (#SK BETWEEN :v1 AND :v2)", aws.ToString(e.KeyCondition()))
	assert.Equal(t, "#expiresAt >= :v3", aws.ToString(e.Filter()))
	assert.Equal(t, "#PK, #SK, #attempts[0].#at", aws.ToString(e.Projection()))
	assert.Equal(t, map[string]string{"#PK": "PK", "#SK": "SK", "#expiresAt": "expiresAt", "#attempts": "attempts", "#at": "at"}, e.Names())

	for kc, want := range map[*expression.KeyConditionBuilder]string{
		ptr(expression.Key("PK").Equal(expression.Value("a")).And(expression.Key("SK").BeginsWith("I#"))):                   "(#PK = :v0) AND (begins_with (#SK, :v1))",
		ptr(expression.Key("PK").Equal(expression.Value("a")).And(expression.Key("SK").LessThan(expression.Value("x")))):    "(#PK = :v0) AND (#SK < :v1)",
		ptr(expression.Key("PK").Equal(expression.Value("a")).And(expression.Key("SK").GreaterThan(expression.Value("x")))): "(#PK = :v0) AND (#SK > :v1)",
	} {
		e, err := expression.NewBuilder().WithKeyCondition(*kc).Build()
		require.NoError(t, err)
		assert.Equal(t, want, aws.ToString(e.KeyCondition()))
	}
}

func ptr[T any](v T) *T { return &v }

// A name that takes the placeholder another one would have gets its own.
func TestPlaceholdersNeverCollide(t *testing.T) {
	e, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name("a b")).
		And(expression.AttributeExists(expression.Name("n0")), expression.AttributeExists(expression.Name("c-d")))).Build()
	require.NoError(t, err)
	assert.Equal(t, "(attribute_exists (#n0)) AND (attribute_exists (#n1)) AND (attribute_exists (#n2))", aws.ToString(e.Condition()))
	assert.Equal(t, map[string]string{"#n0": "a b", "#n1": "n0", "#n2": "c-d"}, e.Names())
}

// Builders are values: extending one leaves the other as it was.
func TestBuildersAreValues(t *testing.T) {
	base := expression.Set(expression.Name("a"), expression.Value(1))
	one := base.Set(expression.Name("b"), expression.Value(2))
	two := base.Remove(expression.Name("c"))
	e1, err := expression.NewBuilder().WithUpdate(one).Build()
	require.NoError(t, err)
	e2, err := expression.NewBuilder().WithUpdate(two).Build()
	require.NoError(t, err)
	assert.Equal(t, "SET #a = :v0, #b = :v1", aws.ToString(e1.Update()))
	assert.Equal(t, "SET #a = :v0\nREMOVE #c", aws.ToString(e2.Update()))
}

// What cannot be written is an error: nothing to build, an empty name, a
// value that does not encode.
func TestBuildErrors(t *testing.T) {
	_, err := expression.NewBuilder().Build()
	assert.ErrorContains(t, err, "no expression to build")
	_, err = expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(""))).Build()
	assert.ErrorContains(t, err, "condition: expression: an attribute name is empty")
	_, err = expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name("a..b"))).Build()
	assert.ErrorContains(t, err, `attribute path "a..b" has an empty name`)
	_, err = expression.NewBuilder().WithUpdate(expression.Set(expression.Name("a"), expression.Value(make(chan int)))).Build()
	assert.ErrorContains(t, err, "update: dynamodb: cannot encode a chan int")
	_, err = expression.NewBuilder().WithCondition(expression.ConditionBuilder{}).Build()
	assert.ErrorContains(t, err, "a condition is empty")
}
