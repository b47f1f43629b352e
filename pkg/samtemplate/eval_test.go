package samtemplate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const evalTemplate = `
Parameters:
  Stage: {Type: String, Default: prod}
  Empty: {Type: String, Default: ''}
  Count: {Type: Number, Default: 3}
  Origins: {Type: CommaDelimitedList, Default: 'https://a.example,https://b.example'}
  Subnets: {Type: 'List<AWS::EC2::Subnet::Id>', Default: 'subnet-1,subnet-2'}
  Blank: {Type: CommaDelimitedList, Default: ''}
  Required: {Type: String}
  Tagged: {Type: String, Default: !Ref Stage}
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  IsDev: {'Fn::Equals': [{Ref: Stage}, dev]}
  NotProd: !Not [!Condition IsProd]
  ProdOrDev: !Or [!Condition IsProd, !Condition IsDev]
  ProdAndCount: !And [!Condition IsProd, !Equals [!Ref Count, 3]]
  LongForms: {'Fn::And': [{Condition: IsProd}, {'Fn::Not': [{Condition: IsDev}]}]}
  NotABool: !Ref Stage
  Loop: !Not [!Condition Loop]
  LoopA: !And [!Condition IsProd, !Condition LoopB]
  LoopB: !Or [!Condition IsDev, !Condition LoopA]
  Broken: !Equals [!Ref Nope, x]
  Diamond: !And [!Condition ProdOrDev, !Condition ProdAndCount]
  IfLoop: !Equals [!If [IfLoop, a, b], a]
Resources:
  Bucket: {Type: AWS::S3::Bucket}
  Fn: {Type: AWS::Serverless::Function}
`

func evaluator(t testing.TB, overrides map[string]string) *Evaluator {
	t.Helper()
	tpl, err := Parse([]byte(evalTemplate))
	require.NoError(t, err)
	return NewEvaluator(tpl.Root, overrides)
}

func TestNewEvaluator(t *testing.T) {
	e := evaluator(t, map[string]string{"Stage": "dev", "AWS::Region": "eu-west-1", "Extra": "x"})
	assert.Equal(t, map[string]string{
		// Pseudo parameters, the region overridden.
		"AWS::Partition": "aws", "AWS::Region": "eu-west-1", "AWS::AccountId": "123456789012",
		"AWS::StackName": "a2a-lambda", "AWS::URLSuffix": "amazonaws.com",
		"AWS::StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/a2a-lambda/3e9f0c80-1a2b-11f0-9c4d-0a1b2c3d4e5f",
		// Defaults, Stage overridden; Required has no default, Tagged's is no plain value.
		"Stage": "dev", "Empty": "", "Count": "3", "Origins": "https://a.example,https://b.example",
		"Subnets": "subnet-1,subnet-2", "Blank": "",
		// An override need not be declared.
		"Extra": "x",
	}, e.Params)
	assert.Equal(t, map[string]bool{"Origins": true, "Subnets": true, "Blank": true}, e.ListParams)
	assert.Equal(t, map[string]bool{"Bucket": true, "Fn": true}, e.Resources)
	assert.Len(t, Keys(e.Conditions), 13)

	// A template without Parameters, Conditions or Resources.
	bare := NewEvaluator(value(t, "{}"), nil)
	assert.Equal(t, "us-east-1", bare.Params["AWS::Region"])
	assert.Len(t, bare.Params, 6)
	assert.Empty(t, bare.ListParams)
	assert.Empty(t, bare.Resources)
	assert.Nil(t, bare.Conditions)
}

func TestEval(t *testing.T) {
	for _, tc := range []struct {
		name      string
		overrides map[string]string
		src       string
		want      any
	}{
		// Plain values.
		{"scalar", nil, "plain", "plain"},
		{"number is a string", nil, "42", "42"},
		{"list", nil, "[a, b]", []any{"a", "b"}},
		{"empty list", nil, "[]", []any(nil)},
		{"mapping", nil, "{A: a, B: [b]}", map[string]any{"A": "a", "B": []any{"b"}}},

		// Ref.
		{"Ref default", nil, "!Ref Stage", "prod"},
		{"Ref override", map[string]string{"Stage": "dev"}, "!Ref Stage", "dev"},
		{"Ref empty default", nil, "!Ref Empty", ""},
		{"Ref long form", nil, "{Ref: Count}", "3"},
		{"Ref pseudo parameter", nil, "!Ref AWS::AccountId", "123456789012"},
		{"Ref pseudo parameter overridden", map[string]string{"AWS::Partition": "aws-cn"}, "!Ref AWS::Partition", "aws-cn"},
		{"Ref resource", nil, "!Ref Bucket", "Bucket"},
		{"Ref list parameter", nil, "!Ref Origins", []any{"https://a.example", "https://b.example"}},
		{"Ref list parameter overridden", map[string]string{"Subnets": "s-9"}, "!Ref Subnets", []any{"s-9"}},
		{"Ref empty list parameter", nil, "!Ref Blank", []any{""}},
		{"Ref NoValue", nil, "!Ref AWS::NoValue", NoValue},

		// GetAtt.
		{"GetAtt short", nil, "!GetAtt Fn.Arn", "Fn.Arn"},
		{"GetAtt short, nested attribute", nil, "!GetAtt Bucket.Endpoint.Address", "Bucket.Endpoint.Address"},
		{"GetAtt short list", nil, "!GetAtt [Fn, Arn]", "Fn.Arn"},
		{"GetAtt long", nil, "{'Fn::GetAtt': [Fn, Arn]}", "Fn.Arn"},
		{"GetAtt long dotted", nil, "{'Fn::GetAtt': Fn.Arn}", "Fn.Arn"},
		{"GetAtt attribute by Ref", map[string]string{"Stage": "Arn"}, "!GetAtt [Fn, !Ref Stage]", "Fn.Arn"},

		// Sub.
		{"Sub parameters and pseudo parameters", nil,
			"!Sub 'arn:${AWS::Partition}:s3:::${Stage}-${AWS::Region}-${Count}'", "arn:aws:s3:::prod-us-east-1-3"},
		{"Sub resource and attribute", nil, "!Sub '${Bucket}/${Fn.Arn}'", "Bucket/Fn.Arn"},
		{"Sub literal", nil, "!Sub 'a-${!Literal}-${Stage}'", "a-${Literal}-prod"},
		{"Sub no variables", nil, "!Sub plain", "plain"},
		{"Sub variables", nil, "!Sub ['${Name}-${Stage}', {Name: !Ref AWS::Region, Stage: mine}]", "us-east-1-mine"},
		{"Sub long form", nil, "{'Fn::Sub': ['${X}.${AWS::URLSuffix}', {X: !GetAtt Fn.Arn}]}", "Fn.Arn.amazonaws.com"},
		{"Sub long form, one argument", nil, "{'Fn::Sub': '${Stage}'}", "prod"},
		{"Sub long form of a function", nil, "{'Fn::Sub': !Join ['-', ['${Stage}', b]]}", "prod-b"},
		{"Join long form of a list parameter", nil, "{'Fn::Join': [',', {Ref: Subnets}]}", "subnet-1,subnet-2"},

		// Join, Split, Select.
		{"Join short", nil, "!Join ['-', [a, !Ref Stage, b]]", "a-prod-b"},
		{"Join long", nil, "{'Fn::Join': ['', [x, y]]}", "xy"},
		{"Join list parameter", nil, "!Join [' ', !Ref Origins]", "https://a.example https://b.example"},
		{"Join empty", nil, "!Join [',', []]", ""},
		{"Join drops NoValue", nil, "!Join [',', [a, !Ref AWS::NoValue, b]]", "a,b"},
		{"Split", nil, "!Split [',', 'a,b,,c']", []any{"a", "b", "", "c"}},
		{"Split a Ref", nil, "!Split ['.', !GetAtt Fn.Arn]", []any{"Fn", "Arn"}},
		{"Select", nil, "!Select [1, [a, b, c]]", "b"},
		{"Select long", nil, "{'Fn::Select': ['0', !Ref Subnets]}", "subnet-1"},
		{"Select of Split", nil, "!Select [2, !Split [':', 'a:b:c']]", "c"},

		// Conditions.
		{"If true", nil, "!If [IsProd, yes, no]", "yes"},
		{"If false", map[string]string{"Stage": "dev"}, "!If [IsProd, yes, no]", "no"},
		{"If long form", nil, "{'Fn::If': [NotProd, yes, {Ref: Stage}]}", "prod"},
		{"If evaluates the chosen branch only", nil, "!If [IsProd, ok, !Ref Nope]", "ok"},
		{"Equals", nil, "!Equals [!Ref Count, '3']", true},
		{"Equals differs", nil, "!Equals [!Ref Stage, dev]", false},
		{"Equals lists", nil, "!Equals [!Ref Subnets, [subnet-1, subnet-2]]", true},
		{"Not", nil, "!Not [!Equals [a, b]]", true},
		{"And", nil, "!And [!Equals [a, a], !Equals [b, c]]", false},
		{"Or", nil, "!Or [!Equals [a, b], !Equals [b, b]]", true},
		{"Condition short", nil, "!Condition ProdAndCount", true},
		{"Condition chain", map[string]string{"Stage": "dev"}, "!Condition ProdOrDev", true},
		{"Condition long forms", nil, "!Condition LongForms", true},
		{"Condition reached twice", nil, "!Condition Diamond", true},
		{"EachMemberEquals true", nil, "!EachMemberEquals [!Ref Blank, '']", true},
		{"EachMemberEquals false", nil, "!EachMemberEquals [!Ref Origins, 'https://a.example']", false},
		{"EachMemberEquals long", map[string]string{"Subnets": "s,s"}, "{'Fn::EachMemberEquals': [{Ref: Subnets}, s]}", true},

		// AWS::NoValue removes what it is in.
		{"NoValue in a list", nil, "[a, !Ref AWS::NoValue, b]", []any{"a", "b"}},
		{"NoValue from If in a list", nil, "[a, !If [IsProd, !Ref AWS::NoValue, b]]", []any{"a"}},
		{"NoValue in a mapping", nil, "{A: a, B: !Ref AWS::NoValue}", map[string]any{"A": "a"}},
		{"NoValue from If in a mapping", nil, "{A: !If [IsDev, a, !Ref AWS::NoValue], B: {C: !Ref AWS::NoValue}}",
			map[string]any{"B": map[string]any{}}},
		{"If keeps the other branch", map[string]string{"Stage": "dev"}, "{A: !If [IsDev, a, !Ref AWS::NoValue]}",
			map[string]any{"A": "a"}},

		// Nested.
		{"policy", map[string]string{"AWS::Partition": "aws-us-gov"}, `
Statement:
  - Effect: Allow
    Action: [s3:GetObject]
    Resource: !Join ['', ['arn:', !Ref AWS::Partition, ':s3:::', !Ref Bucket, /*]]
  - !If [IsDev, {Effect: Deny}, !Ref AWS::NoValue]`,
			map[string]any{"Statement": []any{map[string]any{
				"Effect": "Allow", "Action": []any{"s3:GetObject"}, "Resource": "arn:aws-us-gov:s3:::Bucket/*",
			}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evaluator(t, tc.overrides).Eval(value(t, tc.src))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEvalRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, src, err string
	}{
		// Names that are neither parameters nor resources.
		{"unknown Ref", "!Ref Nope", "Ref Nope: not a parameter or a resource"},
		{"Ref to a parameter without a value", "!Ref Required", "Ref Required: not a parameter or a resource"},
		{"Ref to an unsupported pseudo parameter", "!Ref AWS::NotificationARNs",
			"Ref AWS::NotificationARNs: not a parameter or a resource"},
		{"unknown GetAtt", "!GetAtt Nope.Arn", "Fn::GetAtt: Nope is not a resource"},
		{"GetAtt of a parameter", "!GetAtt [Stage, Arn]", "Fn::GetAtt: Stage is not a resource"},
		{"unknown Sub variable", "!Sub 'a-${Nope}'", "Fn::Sub: ${Nope}: not a parameter or a resource"},
		{"unknown Sub attribute", "!Sub 'a-${Nope.Arn}'", "Fn::Sub: ${Nope.Arn}: Nope is not a resource"},
		{"unknown Ref deep in a mapping", "{A: {B: [!Ref Nope]}}", "A: B: Ref Nope: not a parameter or a resource"},

		// Functions the evaluator does not know.
		{"FindInMap", "!FindInMap [M, K, V]", "Fn::FindInMap is not supported by the evaluator"},
		{"Base64", "{'Fn::Base64': x}", "Fn::Base64 is not supported by the evaluator"},
		{"unknown tag", "!Nope x", "Fn::Nope is not supported by the evaluator"},
		{"alias", "[&a x, *a]", "line 1: cannot evaluate"},

		// Bad argument shapes.
		{"Ref of a list", "{Ref: [Stage]}", "Ref: the argument is a list, not a name"},
		{"Ref of a mapping", "!Ref {A: b}", "Ref: the argument is a mapping, not a name"},
		{"GetAtt without attribute", "!GetAtt Fn", "Fn::GetAtt: Fn names no attribute"},
		{"GetAtt one item", "!GetAtt [Fn]", "Fn::GetAtt needs 2 arguments, not 1"},
		{"GetAtt three items", "{'Fn::GetAtt': [Fn, Arn, X]}", "Fn::GetAtt needs 2 arguments, not 3"},
		{"GetAtt name is a list", "!GetAtt [[Fn], Arn]", "Fn::GetAtt: argument 0 is a list, not a name"},
		{"Sub of a list", "!Sub [[a]]", "Fn::Sub: argument 0 is []interface {}, not a string"},
		{"Sub variables not a mapping", "!Sub ['${A}', [A]]", "Fn::Sub: argument 1 is a list, not a mapping"},
		{"Sub variables a string", "!Sub ['${A}', A]", "Fn::Sub: argument 1 is a string, not a mapping"},
		{"Sub string fails", "!Sub [!Ref Nope]", "Ref Nope: not a parameter or a resource"},
		{"Sub three arguments", "!Sub ['${A}', {A: a}, x]", "Fn::Sub needs 1 or 2 arguments, not 3"},
		{"Sub variable not a string", "!Sub ['${A}', {A: [a]}]", "Fn::Sub: variable A is []interface {}, not a string"},
		{"Sub variable fails", "!Sub ['${A}', {A: !Ref Nope}]", "Fn::Sub: variable A: Ref Nope: not a parameter or a resource"},
		{"Join one argument", "!Join [',']", "Fn::Join needs 2 arguments, not 1"},
		{"Join scalar", "{'Fn::Join': ','}", "Fn::Join needs 2 arguments, not 1"},
		{"Join not a list", "!Join [',', abc]", "Fn::Join: string is not a list"},
		{"Join separator not a string", "!Join [[a], [b]]", "Fn::Join: argument 0 is []interface {}, not a string"},
		{"Join list fails", "!Join [',', [!Ref Nope]]", "Ref Nope: not a parameter or a resource"},
		{"GetAtt attribute fails", "!GetAtt [Fn, !Ref Nope]", "Ref Nope: not a parameter or a resource"},
		{"GetAtt unknown, list", "!GetAtt [Nope, Arn]", "Fn::GetAtt: Nope is not a resource"},
		{"Split one argument", "!Split [',']", "Fn::Split: argument 1 is missing"},
		{"Split of a list", "!Split [',', [a]]", "Fn::Split: argument 1 is []interface {}, not a string"},
		{"Split separator fails", "!Split [!Ref Nope, a]", "Ref Nope: not a parameter or a resource"},
		{"Select one argument", "!Select ['0']", "Fn::Select needs 2 arguments, not 1"},
		{"Select bad index", "!Select [x, [a]]", `Fn::Select: index "x"`},
		{"Select index fails", "!Select [!Ref Nope, [a]]", "Ref Nope: not a parameter or a resource"},
		{"Select list fails", "!Select [0, !Ref Nope]", "Ref Nope: not a parameter or a resource"},
		{"Select out of range", "!Select [3, [a, b]]", "Fn::Select: index 3 out of [a b]"},
		{"Select negative", "!Select ['-1', [a, b]]", "Fn::Select: index -1 out of [a b]"},
		{"Select not a list", "!Select [0, abc]", "Fn::Select: string is not a list"},
		{"If two arguments", "!If [IsProd, a]", "Fn::If needs 3 arguments, not 2"},
		{"If condition not a name", "!If [[IsProd], a, b]", "Fn::If: argument 0 is a list, not a name"},
		{"If unknown condition", "!If [Nope, a, b]", `no condition "Nope"`},
		{"If branch fails", "!If [IsProd, !Ref Nope, b]", "Ref Nope: not a parameter or a resource"},
		{"Equals one argument", "!Equals [a]", "Fn::Equals needs 2 arguments, not 1"},
		{"Equals fails", "!Equals [a, !Ref Nope]", "Ref Nope: not a parameter or a resource"},
		{"Equals first fails", "!Equals [!Ref Nope, a]", "Ref Nope: not a parameter or a resource"},
		{"Or operand fails", "!Or [!Equals [a, a], !Condition Nope]", `no condition "Nope"`},
		{"Not no argument", "!Not []", "Fn::Not needs 1 argument, not 0"},
		{"Not two arguments", "!Not [!Equals [a, a], !Equals [a, a]]", "Fn::Not needs 1 argument, not 2"},
		{"Not of a string", "!Not [a]", "Fn::Not: string is not a condition"},
		{"And one argument", "!And [!Equals [a, a]]", "Fn::And needs 2 to 10 arguments, not 1"},
		{"Or eleven arguments", "!Or [" + "!Equals [a, a], !Equals [a, a], !Equals [a, a], !Equals [a, a], !Equals [a, a], " +
			"!Equals [a, a], !Equals [a, a], !Equals [a, a], !Equals [a, a], !Equals [a, a], !Equals [a, a]]",
			"Fn::Or needs 2 to 10 arguments, not 11"},
		{"And of a list", "!And [[a], !Equals [a, a]]", "Fn::And: []interface {} is not a condition"},
		{"EachMemberEquals no argument", "!EachMemberEquals []", "Fn::EachMemberEquals needs 2 arguments, not 0"},
		{"EachMemberEquals not a list", "!EachMemberEquals [a, a]", "Fn::EachMemberEquals: string is not a list"},
		{"EachMemberEquals value fails", "!EachMemberEquals [[a], !Ref Nope]", "Ref Nope: not a parameter or a resource"},

		// Conditions.
		{"Condition unknown", "!Condition Nope", `no condition "Nope"`},
		{"Condition of a list", "!Condition [IsProd]", "Condition: the argument is a list, not a name"},
		{"If condition is a function", "!If [!Condition IsProd, a, b]", "Fn::If: argument 0 is Condition, not a name"},
		{"Ref of a function", "{Ref: !Sub x}", "Ref: the argument is Fn::Sub, not a name"},
		{"Ref of an alias", "[&a x, {Ref: *a}]", "Ref: the argument is an alias, not a name"},
		{"Condition not a bool", "!Condition NotABool", "condition NotABool is string"},
		{"Condition fails", "!Condition Broken", "condition Broken: Ref Nope: not a parameter or a resource"},
		{"Condition refers to itself", "!Condition Loop", "condition Loop refers to itself: Loop → Loop"},
		{"Conditions refer to each other", "!If [LoopA, a, b]", "condition LoopA refers to itself: LoopA → LoopB → LoopA"},
		{"Condition refers to itself through If", "!Condition IfLoop", "condition IfLoop refers to itself: IfLoop → IfLoop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evaluator(t, nil).Eval(value(t, tc.src))
			require.Error(t, err, "got %v", got)
			assert.Nil(t, got)
			assert.EqualError(t, err, tc.err)
		})
	}

	_, err := evaluator(t, nil).Eval(nil)
	assert.EqualError(t, err, "missing value")
}

func TestCondition(t *testing.T) {
	for _, tc := range []struct {
		name      string
		overrides map[string]string
		want      bool
	}{
		{"IsProd", nil, true},
		{"IsProd", map[string]string{"Stage": "dev"}, false},
		{"IsDev", map[string]string{"Stage": "dev"}, true},
		{"NotProd", nil, false},
		{"ProdOrDev", map[string]string{"Stage": "test"}, false},
		{"ProdAndCount", map[string]string{"Count": "4"}, false},
		{"LongForms", map[string]string{"Stage": "dev"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evaluator(t, tc.overrides).Condition(tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	_, err := evaluator(t, nil).Condition("Nope")
	assert.EqualError(t, err, `no condition "Nope"`)
	_, err = evaluator(t, nil).Condition("LoopB")
	assert.EqualError(t, err, "condition LoopB refers to itself: LoopB → LoopA → LoopB")
	_, err = NewEvaluator(value(t, "{}"), nil).Condition("IsProd")
	assert.EqualError(t, err, `no condition "IsProd"`)
}

// An evaluator built by hand, without resources, keeps taking any name as
// a resource's stand-in.
func TestEvaluatorWithoutResources(t *testing.T) {
	e := &Evaluator{Params: map[string]string{"Stage": "prod"}}
	for src, want := range map[string]string{
		"!Ref Stage":            "prod",
		"!Ref Anything":         "Anything",
		"!GetAtt Anything.Arn":  "Anything.Arn",
		"!Sub '${X}-${Y.Arn}'":  "X-Y.Arn",
		"!Sub '${Stage}-${!L}'": "prod-${L}",
	} {
		got, err := e.Eval(value(t, src))
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
}
