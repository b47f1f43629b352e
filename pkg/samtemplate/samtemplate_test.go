package samtemplate

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// value parses one YAML value (a scalar, list or mapping, tags kept).
func value(t testing.TB, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(src), &doc), src)
	require.Len(t, doc.Content, 1, src)
	return doc.Content[0]
}

func TestParse(t *testing.T) {
	const good = `
AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Globals:
  Function: {Timeout: 5}
Rules:
  R: {Assertions: []}
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties: {TableName: t}
  Fn:
    Type: AWS::Serverless::Function
    Condition: UseIt
    Metadata: {BuildMethod: makefile}
    Properties:
      Handler: bootstrap
  Bare:
    Type: !Ref Weird
`
	tpl, err := Parse([]byte(good))
	require.NoError(t, err)
	assert.Equal(t, []string{"Table", "Fn", "Bare"}, tpl.Order)
	require.Len(t, tpl.Resources, 3)

	fn := tpl.Resources["Fn"]
	assert.Equal(t, "Fn", fn.Name)
	assert.Equal(t, "AWS::Serverless::Function", fn.Type)
	assert.Equal(t, "UseIt", fn.Condition)
	h, _ := Scalar(fn.Prop("Handler"))
	assert.Equal(t, "bootstrap", h)
	m, _ := Scalar(Get(fn.Metadata, "BuildMethod"))
	assert.Equal(t, "makefile", m)

	table := tpl.Resources["Table"]
	assert.Equal(t, "", table.Condition)
	assert.Nil(t, table.Metadata)

	// A tagged Type is no plain type; the resource has no properties.
	assert.Equal(t, "", tpl.Resources["Bare"].Type)
	assert.Nil(t, tpl.Resources["Bare"].Properties)
	assert.Nil(t, tpl.Resources["Bare"].Prop("Anything"))

	timeout, _ := Scalar(Get(tpl.Globals, "Function", "Timeout"))
	assert.Equal(t, "5", timeout)
	assert.Equal(t, []string{"R"}, Keys(tpl.Rules))
	v, _ := Scalar(Get(tpl.Root, "Transform"))
	assert.Equal(t, "AWS::Serverless-2016-10-31", v)

	bare, err := Parse([]byte("Resources: {}\n"))
	require.NoError(t, err)
	assert.Empty(t, bare.Order)
	assert.Empty(t, bare.Resources)
	assert.Nil(t, bare.Globals)
	assert.Nil(t, bare.Rules)
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, src, err string
	}{
		{"malformed YAML", "Resources: [a\n", "yaml: "},
		{"tab indentation", "Resources:\n\tA: {}\n", "yaml: "},
		{"empty document", "", "not a template: the document is not a mapping"},
		{"comment only", "# nothing\n", "not a template: the document is not a mapping"},
		{"scalar document", "hello\n", "not a template: the document is not a mapping"},
		{"list document", "- Resources\n", "not a template: the document is not a mapping"},
		{"no Resources", "Parameters: {}\n", "not a template: no Resources"},
		{"Resources is a list", "Resources: [A]\n", "not a template: no Resources"},
		{"Resources is a scalar", "Resources: none\n", "not a template: no Resources"},
		{"Resources is empty", "Resources:\n", "not a template: no Resources"},
		{"duplicate resource", "Resources:\n  A: {Type: X}\n  B: {Type: Y}\n  A: {Type: Z}\n",
			"not a template: resource A is declared twice (lines 2 and 4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := Parse([]byte(tc.src))
			require.Error(t, err)
			assert.Nil(t, tpl)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "template.yaml")
	require.NoError(t, os.WriteFile(good, []byte("Resources:\n  A: {Type: AWS::SNS::Topic}\n"), 0o600))
	tpl, err := Load(good)
	require.NoError(t, err)
	assert.Equal(t, []string{"A"}, tpl.Order)
	assert.Equal(t, "AWS::SNS::Topic", tpl.Resources["A"].Type)

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("Parameters: {}\n"), 0o600))
	_, err = Load(bad)
	assert.EqualError(t, err, bad+": not a template: no Resources")

	_, err = Load(filepath.Join(dir, "missing.yaml"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestOfType(t *testing.T) {
	tpl, err := Parse([]byte(`
Resources:
  Q2: {Type: AWS::SQS::Queue}
  T: {Type: AWS::SNS::Topic}
  Q1: {Type: AWS::SQS::Queue}
`))
	require.NoError(t, err)
	names := func(rs []*Resource) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	assert.Equal(t, []string{"Q2", "Q1"}, names(tpl.OfType("AWS::SQS::Queue")), "the template's order, not the names'")
	assert.Equal(t, []string{"T"}, names(tpl.OfType("AWS::SNS::Topic")))
	assert.Empty(t, tpl.OfType("AWS::Lambda::Function"))
	assert.Empty(t, tpl.OfType(""))
}

func TestGet(t *testing.T) {
	n := value(t, `
A:
  B: {C: deep}
  L: [x, y]
  S: plain
Dup: first
Dup: second
`)
	for _, tc := range []struct {
		name string
		path []string
		want string // the scalar found, or "" for nil
	}{
		{"one key", []string{"A", "S"}, "plain"},
		{"nested keys", []string{"A", "B", "C"}, "deep"},
		{"missing key", []string{"A", "Nope"}, ""},
		{"missing first key", []string{"Nope", "B"}, ""},
		{"through a scalar", []string{"A", "S", "X"}, ""},
		{"through a list", []string{"A", "L", "0"}, ""},
		{"first of duplicate keys", []string{"Dup"}, "first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Get(n, tc.path...)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			s, ok := Scalar(got)
			require.True(t, ok)
			assert.Equal(t, tc.want, s)
		})
	}
	assert.Same(t, n, Get(n), "no path is the node itself")
	assert.Nil(t, Get(nil, "A"))
	assert.Nil(t, Get(nil))
	assert.Equal(t, yaml.SequenceNode, Get(n, "A", "L").Kind)
}

func TestKeys(t *testing.T) {
	assert.Equal(t, []string{"Z", "A", "M"}, Keys(value(t, "{Z: 1, A: 2, M: 3}")))
	assert.Empty(t, Keys(value(t, "{}")))
	assert.Nil(t, Keys(value(t, "[A, B]")))
	assert.Nil(t, Keys(value(t, "A")))
	assert.Nil(t, Keys(nil))
}

func TestScalar(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string
		ok   bool
	}{
		{"plain", "plain", true},
		{"'quoted'", "quoted", true},
		{"42", "42", true},
		{"''", "", true},
		{"!!str 7", "7", true},
		{"!Ref X", "", false},
		{"!Sub 'a-${X}'", "", false},
		{"[a]", "", false},
		{"{a: b}", "", false},
		{"{Ref: X}", "", false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			got, ok := Scalar(value(t, tc.src))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
	_, ok := Scalar(nil)
	assert.False(t, ok)
}

func TestIntrinsic(t *testing.T) {
	for _, tc := range []struct {
		src string
		fn  string
		arg string // the argument node, re-encoded as YAML; "" when not an intrinsic
	}{
		{"!Ref Bucket", "Ref", "!Ref Bucket"},
		{"!Condition UseJwt", "Condition", "!Condition UseJwt"},
		{"!GetAtt Fn.Arn", "Fn::GetAtt", "!GetAtt Fn.Arn"},
		{"!Sub ['${A}', {A: x}]", "Fn::Sub", "!Sub ['${A}', {A: x}]"},
		{"!If [C, a, b]", "Fn::If", "!If [C, a, b]"},
		{"{Ref: Bucket}", "Ref", "Bucket"},
		{"{'Fn::GetAtt': [Fn, Arn]}", "Fn::GetAtt", "[Fn, Arn]"},
		{"{'Fn::Join': ['', [a, b]]}", "Fn::Join", "['', [a, b]]"},
		{"{Fn::Anything: x}", "Fn::Anything", "x"},
		// Not intrinsics.
		{"Bucket", "", ""},
		{"!!str Bucket", "", ""},
		{"[Ref, Bucket]", "", ""},
		{"{Ref: Bucket, Other: x}", "", ""},
		{"{Name: Bucket}", "", ""},
		{"{Condition: UseJwt}", "", ""},
	} {
		t.Run(tc.src, func(t *testing.T) {
			fn, arg, ok := Intrinsic(value(t, tc.src))
			assert.Equal(t, tc.fn != "", ok)
			assert.Equal(t, tc.fn, fn)
			if tc.arg == "" {
				assert.Nil(t, arg)
				return
			}
			require.NotNil(t, arg)
			want := value(t, tc.arg)
			assert.Equal(t, want.Tag, arg.Tag)
			assert.Equal(t, want.Kind, arg.Kind)
			assert.Equal(t, want.Value, arg.Value)
			assert.Len(t, arg.Content, len(want.Content))
		})
	}
	_, _, ok := Intrinsic(nil)
	assert.False(t, ok)
}

func TestRefTarget(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		ok        bool
	}{
		{"!Ref Bucket", "Bucket", true},
		{"{Ref: Bucket}", "Bucket", true},
		{"!GetAtt Fn.Arn", "Fn", true},
		{"!GetAtt Fn", "Fn", true},
		{"!GetAtt [Fn, Arn]", "Fn", true},
		{"{'Fn::GetAtt': [Fn, Arn]}", "Fn", true},
		{"{'Fn::GetAtt': Fn.Arn}", "Fn", true},
		{"{'Fn::GetAtt': []}", "", false},
		{"{Ref: [Bucket]}", "", false},
		{"!Sub '${Fn.Arn}'", "", false},
		{"!If [C, !Ref A, !Ref B]", "", false},
		{"Bucket", "", false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			got, ok := RefTarget(value(t, tc.src))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
	_, ok := RefTarget(nil)
	assert.False(t, ok)
}

const routesTemplate = `
Resources:
  Api: {Type: AWS::ApiGatewayV2::Api}
  Authorizer: {Type: AWS::ApiGatewayV2::Authorizer}
  SendFn: {Type: AWS::Serverless::Function}
  CardFn: {Type: AWS::Serverless::Function}
  SendIntegration:
    Type: AWS::ApiGatewayV2::Integration
    Properties:
      IntegrationUri: !GetAtt SendFn.Arn
  CardIntegration:
    Type: AWS::ApiGatewayV2::Integration
    Properties:
      IntegrationUri: {Ref: CardFn}
  RouteCard:
    Type: AWS::ApiGatewayV2::Route
    Properties:
      RouteKey: GET /.well-known/agent-card.json
      Target: !Sub 'integrations/${CardIntegration}'
      AuthorizationType: NONE
  RouteSendJwt:
    Type: AWS::ApiGatewayV2::Route
    Condition: UseJwt
    Properties:
      RouteKey: POST /
      Target: {'Fn::Sub': 'integrations/${SendIntegration}'}
      AuthorizationType: JWT
      AuthorizerId: !Ref Authorizer
  RouteSendEither:
    Type: AWS::ApiGatewayV2::Route
    Properties:
      RouteKey: POST /either
      Target: !Sub integrations/${SendIntegration}
      AuthorizationType: !If [UseJwt, JWT, NONE]
`

func TestRoutes(t *testing.T) {
	tpl, err := Parse([]byte(routesTemplate))
	require.NoError(t, err)
	routes, err := tpl.Routes()
	require.NoError(t, err)
	assert.Equal(t, []Route{
		{Name: "RouteCard", Key: "GET /.well-known/agent-card.json", Function: "CardFn", Authorization: "NONE"},
		{Name: "RouteSendJwt", Key: "POST /", Function: "SendFn", Authorization: "JWT", Authorizer: "Authorizer", Condition: "UseJwt"},
		{Name: "RouteSendEither", Key: "POST /either", Function: "SendFn", Authorization: "Fn::If"},
	}, routes)

	none, err := Parse([]byte("Resources: {Fn: {Type: AWS::Serverless::Function}}\n"))
	require.NoError(t, err)
	routes, err = none.Routes()
	assert.NoError(t, err)
	assert.Empty(t, routes)
}

func TestRoutesRefuses(t *testing.T) {
	// Each bad route is reported; the good one is still returned.
	tpl, err := Parse([]byte(routesTemplate + `
  RoutePlainTarget:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /a, Target: integrations/abc}
  RouteNoTarget:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /b}
  RouteRefTarget:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /c, Target: !Ref SendIntegration}
  RouteOtherSub:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /d, Target: !Sub 'routes/${SendIntegration}'}
  RouteToFunction:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /e, Target: !Sub 'integrations/${SendFn}'}
  RouteToNothing:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /f, Target: !Sub 'integrations/${Missing}'}
  RouteToSubIntegration:
    Type: AWS::ApiGatewayV2::Route
    Properties: {RouteKey: GET /g, Target: !Sub 'integrations/${SubIntegration}'}
  SubIntegration:
    Type: AWS::ApiGatewayV2::Integration
    Properties:
      IntegrationUri: !Sub 'arn:aws:lambda:${AWS::Region}:${AWS::AccountId}:function:x'
`))
	require.NoError(t, err)
	routes, err := tpl.Routes()
	require.Len(t, routes, 3)
	assert.Equal(t, "RouteCard", routes[0].Name)
	require.Error(t, err)
	const notSub = "Target is not !Sub 'integrations/${Integration}'"
	assert.Equal(t, "route RoutePlainTarget: "+notSub+"\n"+
		"route RouteNoTarget: "+notSub+"\n"+
		"route RouteRefTarget: "+notSub+"\n"+
		"route RouteOtherSub: "+notSub+"\n"+
		"route RouteToFunction: SendFn is not an integration\n"+
		"route RouteToNothing: Missing is not an integration\n"+
		"route RouteToSubIntegration: integration SubIntegration does not name a function", err.Error())
}

// FuzzParse checks that no template, however broken, makes Parse, Routes or
// the evaluation of a resource's properties and conditions panic.
func FuzzParse(f *testing.F) {
	own, err := os.ReadFile("../../template.yaml")
	require.NoError(f, err)
	for _, seed := range [][]byte{
		own,
		[]byte(routesTemplate),
		[]byte(evalTemplate),
		[]byte("Resources: {}\n"),
		[]byte("Resources: [a\n"),
		[]byte("Conditions: {A: !Condition A, B: !Equals [!If [B, a, b], a]}\nResources: {X: {Type: T, Condition: A, Properties: {P: !If [A, 1, 2]}}}\n"),
		[]byte("Resources: {X: {Type: T, Properties: {J: !Join [','], S: !Select ['0'], N: !Not [], E: !EachMemberEquals []}}}\n"),
		[]byte("Resources: {A: &a {Type: T}, B: *a, C: {Type: T, Properties: {<<: *a, R: !Ref {x: y}}}}\n"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tpl, err := Parse(b)
		if err != nil {
			require.Nil(t, tpl)
			return
		}
		require.Len(t, tpl.Resources, len(tpl.Order))
		_, _ = tpl.Routes()
		ev := NewEvaluator(tpl.Root, nil)
		for _, name := range tpl.Order {
			r := tpl.Resources[name]
			if r.Properties != nil {
				_, _ = ev.Eval(r.Properties)
			}
			if r.Condition != "" {
				_, _ = ev.Condition(r.Condition)
			}
		}
		for _, name := range Keys(ev.Conditions) {
			_, _ = ev.Condition(name)
		}
	})
}
