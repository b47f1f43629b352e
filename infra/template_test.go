// Package infra_test holds template.yaml to the code it deploys: the table
// to the store's definition, the routes to the handlers and the sample
// events, the functions to functions/ and the Makefile, the environment to
// the variables the code reads, the policies to their scope. And it proves
// that the offline SAM transform step of `make validate` catches what sam
// build and sam deploy would fail on.
package infra_test

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
)

const root = ".."

func load(t *testing.T) *samtemplate.Template {
	t.Helper()
	tpl, err := samtemplate.Load(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	return tpl
}

// decode decodes a template node that holds no intrinsic functions.
func decode(t *testing.T, n *yaml.Node, v any) {
	t.Helper()
	require.NotNil(t, n)
	require.NoError(t, n.Decode(v))
}

// The table the stack creates is the table the store creates locally
// (dynamo.TableInput): the same keys, indexes and projections; and the
// settings the deployment adds: TTL, stream, backups, encryption, kept on
// delete.
func TestTableMatchesTheStore(t *testing.T) {
	tpl := load(t)
	tables := tpl.OfType("AWS::DynamoDB::Table")
	require.Len(t, tables, 1)
	tbl := tables[0]
	want := dynamo.TableInput("x")

	type attr struct {
		AttributeName string `yaml:"AttributeName"`
		AttributeType string `yaml:"AttributeType"`
		KeyType       string `yaml:"KeyType"`
	}
	var defs, keys []attr
	decode(t, tbl.Prop("AttributeDefinitions"), &defs)
	decode(t, tbl.Prop("KeySchema"), &keys)
	var wantDefs, wantKeys []attr
	for _, d := range want.AttributeDefinitions {
		wantDefs = append(wantDefs, attr{AttributeName: *d.AttributeName, AttributeType: string(d.AttributeType)})
	}
	for _, k := range want.KeySchema {
		wantKeys = append(wantKeys, attr{AttributeName: *k.AttributeName, KeyType: string(k.KeyType)})
	}
	assert.ElementsMatch(t, wantDefs, defs)
	assert.Equal(t, wantKeys, keys)

	type index struct {
		IndexName  string `yaml:"IndexName"`
		KeySchema  []attr `yaml:"KeySchema"`
		Projection struct {
			ProjectionType   string   `yaml:"ProjectionType"`
			NonKeyAttributes []string `yaml:"NonKeyAttributes"`
		} `yaml:"Projection"`
	}
	var gsis []index
	decode(t, tbl.Prop("GlobalSecondaryIndexes"), &gsis)
	require.Len(t, gsis, len(want.GlobalSecondaryIndexes))
	for i, w := range want.GlobalSecondaryIndexes {
		assert.Equal(t, *w.IndexName, gsis[i].IndexName)
		var wk []attr
		for _, k := range w.KeySchema {
			wk = append(wk, attr{AttributeName: *k.AttributeName, KeyType: string(k.KeyType)})
		}
		assert.Equal(t, wk, gsis[i].KeySchema, *w.IndexName)
		assert.Equal(t, string(w.Projection.ProjectionType), gsis[i].Projection.ProjectionType, *w.IndexName)
		assert.ElementsMatch(t, w.Projection.NonKeyAttributes, gsis[i].Projection.NonKeyAttributes, *w.IndexName)
	}

	for path, want := range map[string]string{
		"BillingMode":                                                 string(want.BillingMode),
		"StreamSpecification.StreamViewType":                          string(want.StreamSpecification.StreamViewType),
		"TimeToLiveSpecification.AttributeName":                       dynamo.TTLAttribute,
		"TimeToLiveSpecification.Enabled":                             "true",
		"PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled": "true",
	} {
		v, ok := samtemplate.Scalar(tbl.Prop(strings.Split(path, ".")...))
		assert.True(t, ok, path)
		assert.Equal(t, want, v, path)
	}
	b, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^  TaskTable:\n    Type: AWS::DynamoDB::Table\n(    #.*\n)*    DeletionPolicy: Retain\n    UpdateReplacePolicy: Retain\n`, string(b), "tasks outlive the stack")
}

// backlogStore is the memory store with the Lambda functions' backlog
// (nothing here runs deferred work).
type backlogStore struct{ *memory.Store }

func (backlogStore) Defer(context.Context, string, []byte) error { return nil }

// functionHandlers builds each HTTP function's handler as its main does,
// on a memory store (the routes, not the store, are under test).
func functionHandlers(t *testing.T) map[string]http.Handler {
	t.Helper()
	getenv := envtest.Getenv("A2A_BEARER_TOKEN", "test-token-16-ch", "A2A_AGENT", "echo", "A2A_PUSH_SIGNING_KEYS", keystest.PEM(t, ""))
	card, err := boot.NewCardFunction(context.Background(), getenv, builtin.Registry(), io.Discard)
	require.NoError(t, err)
	cfg, err := config.Load(getenv)
	require.NoError(t, err)
	ag, err := builtin.Registry().New("echo", envtest.Getenv())
	require.NoError(t, err)
	handlers := map[string]http.Handler{"CardFunction": card}
	for name, routes := range map[string]httpapi.Routes{"SendFunction": httpapi.RoutesRPC, "TasksFunction": httpapi.RoutesTasks} {
		h, err := httpfn.NewHandler(cfg, ag, backlogStore{memory.New(memory.Options{})}, httpfn.Options{Routes: routes})
		require.NoError(t, err)
		handlers[name] = h
	}
	return handlers
}

// Every HTTP sample event names a route of the template, of the function
// whose tests feed it.
func TestSampleEventsMatchRoutes(t *testing.T) {
	routes, err := load(t).Routes()
	require.NoError(t, err)
	fnOf := map[string]string{}
	for _, r := range routes {
		fnOf[r.Key] = r.Function
	}
	n := 0
	err = filepath.WalkDir(filepath.Join(root, "events"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var ev events.APIGatewayV2HTTPRequest
		if json.Unmarshal(b, &ev) != nil || ev.RouteKey == "" {
			return nil // not an HTTP API event
		}
		n++
		rel, _ := filepath.Rel(filepath.Join(root, "events"), path)
		want := map[string]string{"card-get.json": "CardFunction", "send": "SendFunction", "tasks": "TasksFunction"}[strings.Split(rel, string(filepath.Separator))[0]]
		assert.Equal(t, want, fnOf[ev.RouteKey], "%s: route %q", rel, ev.RouteKey)
		assert.Equal(t, ev.RouteKey, ev.RequestContext.RouteKey, rel)
		method, pattern, _ := strings.Cut(ev.RouteKey, " ")
		assert.Equal(t, method, ev.RequestContext.HTTP.Method, rel)
		assert.Regexp(t, routePattern(pattern), ev.RawPath, "%s: the path fits the route", rel)
		assert.Equal(t, pathParameters(pattern, ev.RawPath), ev.PathParameters, "%s: the path parameters API Gateway passes", rel)
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 9)
}

// Every function directory has its function in the template, built by the
// Makefile (sam build's makefile method), and every function of the
// template has its directory.
func TestFunctionsAreDeployed(t *testing.T) {
	tpl := load(t)
	dirs, err := filepath.Glob(filepath.Join(root, "functions", "*", "main.go"))
	require.NoError(t, err)
	have := map[string]bool{}
	for _, d := range dirs {
		have[filepath.Base(filepath.Dir(d))] = true
	}
	declared := map[string]bool{}
	for _, fn := range tpl.OfType("AWS::Serverless::Function") {
		method, _ := samtemplate.Scalar(samtemplate.Get(fn.Metadata, "BuildMethod"))
		assert.Equal(t, "makefile", method, fn.Name)
		dir := strings.ToLower(strings.TrimSuffix(fn.Name, "Function"))
		declared[dir] = true
		assert.True(t, have[dir], "%s: functions/%s does not exist", fn.Name, dir)
	}
	for d := range have {
		assert.True(t, declared[d], "functions/%s has no function in template.yaml", d)
	}
}

// environment returns the variables the template sets: for each function,
// the Globals merged with its own.
func environment(t *testing.T, tpl *samtemplate.Template) map[string]map[string]*yaml.Node {
	vars := func(n *yaml.Node) map[string]*yaml.Node {
		m := map[string]*yaml.Node{}
		for _, k := range samtemplate.Keys(n) {
			m[k] = samtemplate.Get(n, k)
		}
		return m
	}
	global := vars(samtemplate.Get(tpl.Globals, "Function", "Environment", "Variables"))
	out := map[string]map[string]*yaml.Node{}
	for _, fn := range tpl.OfType("AWS::Serverless::Function") {
		env := vars(fn.Prop("Environment", "Variables"))
		for k, v := range global {
			if _, ok := env[k]; !ok {
				env[k] = v
			}
		}
		out[fn.Name] = env
	}
	return out
}

// secretReference is the pattern of every secret parameter: an SSM
// parameter or a Secrets Manager secret, by name (the functions' policies
// are made from the names).
const secretReference = `^(ssm:/[A-Za-z0-9/_.-]+|secretsmanager:[A-Za-z0-9/_+=.@-]+)?$`

// The template sets only variables the code reads (a typo would be
// ignored silently), and every secret only as a reference: from a parameter
// that admits nothing else.
func TestEnvironment(t *testing.T) {
	read := map[string]bool{}
	literal := regexp.MustCompile(`"(A2A_[A-Z0-9_]+)"`)
	for _, dir := range []string{"pkg", "cmd", "functions"} {
		require.NoError(t, filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
				read[m[1]] = true
			}
			return err
		}))
	}
	tpl := load(t)
	for fn, env := range environment(t, tpl) {
		for name, value := range env {
			switch {
			case name == "AWS_ENDPOINT_URL":
				v, _ := samtemplate.Scalar(value)
				assert.Empty(t, v, "%s: AWS_ENDPOINT_URL is only for sam local", fn)
			default:
				assert.True(t, read[name], "%s: %s is set, but no code reads it", fn, name)
			}
			if !slices.Contains(config.SecretVariables(), name) {
				continue
			}
			param, ok := samtemplate.RefTarget(value)
			require.True(t, ok, "%s: %s must come from a parameter", fn, name)
			pattern, _ := samtemplate.Scalar(samtemplate.Get(tpl.Root, "Parameters", param, "AllowedPattern"))
			if name == agent.EnvSettings {
				// A JSON object of settings, or a reference to where it is
				// kept when it holds secrets: never a bare value.
				re := regexp.MustCompile(pattern)
				for _, ok := range []string{"", `{"A2A_LLM_MAX_TOKENS": 512}`, "ssm:/my-agent/settings", "secretsmanager:my-agent/settings"} {
					assert.True(t, re.MatchString(ok), "%s: parameter %s refuses %s", fn, param, ok)
				}
				for _, bad := range []string{"sk-secret", "ssm:relative", "secretsmanager:arn:aws:secretsmanager:us-east-1:1:secret:x"} {
					assert.False(t, re.MatchString(bad), "%s: parameter %s admits %s", fn, param, bad)
				}
				continue
			}
			assert.Equal(t, secretReference, pattern,
				"%s: %s comes from parameter %s, which must admit only references by name", fn, name, param)
		}
	}
}

// Function policies grant on this stack's resources only: a statement of a
// function's role names every resource only for actions IAM evaluates on
// no resource (TestPoliciesGrantWhatIAMEvaluates checks them against the
// Service Authorization Reference); the card function may only read its
// signing keys.
func TestPoliciesAreScoped(t *testing.T) {
	resourceless := []string{"states:SendTaskSuccess", "states:SendTaskFailure", "dynamodb:ListStreams"}
	tpl := load(t)
	for _, fn := range tpl.OfType("AWS::Serverless::Function") {
		policies := fn.Prop("Policies")
		require.NotNil(t, policies, fn.Name)
		if fn.Name == "CardFunction" {
			assert.ElementsMatch(t, []string{"ssm:GetParameter", "secretsmanager:GetSecretValue", "kms:Decrypt"}, scalarsAt(policies, "Action"),
				"the card function's only AWS access is reading its signing keys")
		}
		for _, policy := range policies.Content {
			stmts := []*yaml.Node{policy} // a policy chosen by a condition, whole
			if st := samtemplate.Get(policy, "Statement"); st != nil {
				stmts = st.Content
			}
			for _, stmt := range stmts {
				if !slices.Contains(scalarsAt(stmt, "Resource"), "*") {
					continue
				}
				for _, a := range scalarsAt(stmt, "Action") {
					assert.Contains(t, resourceless, a, "%s: a statement grants %s on Resource '*'", fn.Name, a)
				}
			}
		}
	}
}

// scalarsAt returns the scalar values of the mapping key key anywhere
// below n (a key whose value is a list or a mapping is passed over).
func scalarsAt(n *yaml.Node, key string) []string {
	var out []string
	var walk func(n *yaml.Node, k string)
	walk = func(n *yaml.Node, k string) {
		if k == key && n.Kind == yaml.ScalarNode {
			out = append(out, n.Value)
		}
		for i, c := range n.Content {
			ck := ""
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				ck = n.Content[i-1].Value
			}
			walk(c, ck)
		}
	}
	walk(n, "")
	return out
}

// events/env.json (sam local --env-vars) sets only variables the template
// declares for the function it names: sam local ignores the others
// silently. Its "Parameters" apply to every function.
func TestLocalEnvironment(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "events", "env.json"))
	require.NoError(t, err)
	var local map[string]map[string]string
	require.NoError(t, json.Unmarshal(b, &local))
	declared := environment(t, load(t))
	for fn, vars := range local {
		for name := range vars {
			if fn == "Parameters" {
				for f, env := range declared {
					assert.Contains(t, env, name, "events/env.json: Parameters.%s is not declared for %s", name, f)
				}
				continue
			}
			require.Contains(t, declared, fn, "events/env.json: %s is not a function of the template", fn)
			assert.Contains(t, declared[fn], name, "events/env.json: %s.%s is not declared in the template, so sam local ignores it", fn, name)
		}
	}
	assert.NotContains(t, local["Parameters"], "A2A_TASK_STORE_CREATE_TABLE", "the functions refuse to create their table: sam local would fail at every cold start")
	for _, fn := range []string{"SendFunction", "TasksFunction"} {
		assert.Equal(t, "events-sample-token", local[fn]["A2A_BEARER_TOKEN"], "%s: sam local invoke -e events/... must pass with the sample events' token", fn)
		assert.Equal(t, "inline", local[fn]["A2A_EXECUTION"], "%s runs steps inline under sam local (no Step Functions)", fn)
		assert.Equal(t, "", local[fn]["A2A_STATE_MACHINE_ARN"], "%s: sam local resolves !Ref TaskStateMachine to no ARN", fn)
	}
}

// samconfig.toml's environments deploy this template: the default one and
// dev and prod beside it, each its own stack with its own secrets, their
// parameter overrides naming template parameters, secrets passed only as
// references. An environment inherits nothing from another, so each has
// the build and deploy settings `sam build/deploy --config-env` needs.
func TestSamConfig(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("SKIPPED, needs python3 (tomllib) to read samconfig.toml")
	}
	out, err := exec.Command(python, "-c", `import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))`, filepath.Join(root, "samconfig.toml")).CombinedOutput()
	require.NoError(t, err, string(out))
	type env map[string]struct {
		Parameters map[string]any `json:"parameters"`
	}
	var cfg map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &cfg))
	envs := map[string]env{}
	for name, raw := range cfg {
		if name == "version" {
			continue
		}
		var e env
		require.NoError(t, json.Unmarshal(raw, &e), name)
		envs[name] = e
	}
	require.Contains(t, envs, "default")
	require.Contains(t, envs, "dev")
	require.Contains(t, envs, "prod")

	def := envs["default"]
	assert.Equal(t, "events/env.json", def["local_start_api"].Parameters["env_vars"])
	assert.Equal(t, "events/env.json", def["local_invoke"].Parameters["env_vars"])
	assert.Equal(t, true, def["local_start_api"].Parameters["disable_authorizer"], "no JWT authorizer under sam local: the functions check the local token")

	params := samtemplate.Keys(samtemplate.Get(load(t).Root, "Parameters"))
	stacks := map[string]string{}
	secrets := map[string]string{}
	overrides := map[string]map[string]string{}
	for name, e := range envs {
		stack, _ := e["global"].Parameters["stack_name"].(string)
		require.NotEmpty(t, stack, "%s: a stack name", name)
		assert.NotContains(t, stacks, stack, "%s deploys the stack %s of %s", name, stack, stacks[stack])
		stacks[stack] = name
		assert.Equal(t, true, e["build"].Parameters["build_in_source"], "%s: sam build --config-env %s builds as the Makefile expects", name, name)
		deploy := e["deploy"].Parameters
		assert.Equal(t, "CAPABILITY_IAM", deploy["capabilities"], name)
		assert.Equal(t, true, deploy["resolve_s3"], name)
		overrides[name] = map[string]string{}
		for _, kv := range strings.Fields(deploy["parameter_overrides"].(string)) {
			param, value, ok := strings.Cut(kv, "=")
			require.True(t, ok, kv)
			assert.Contains(t, params, param, "%s: samconfig.toml overrides %s, which template.yaml does not declare", name, param)
			overrides[name][param] = value
		}
		for _, param := range []string{"BearerToken", "PushSigningKeys"} {
			ref := overrides[name][param]
			assert.Regexp(t, `^ssm:/`+regexp.QuoteMeta(stack)+`/`, ref, "%s: %s is a reference by name under the stack's own path, which its policies grant", name, param)
			assert.NotContains(t, secrets, ref, "%s shares %s with %s", name, ref, secrets[ref])
			secrets[ref] = name
		}
	}
	assert.Equal(t, "a2a-lambda", envs["default"]["global"].Parameters["stack_name"])
	assert.Equal(t, "false", overrides["dev"]["CreateAlarms"], "dev pays for no alarms")
	assert.Equal(t, "false", overrides["dev"]["TableDeletionProtection"], "a dev stack may be deleted with its table")
	assert.Equal(t, "true", overrides["prod"]["CreateAlarms"])
	assert.Equal(t, "true", overrides["prod"]["TableDeletionProtection"])
	assert.Equal(t, true, envs["prod"]["deploy"].Parameters["confirm_changeset"], "prod shows each change set before applying it")
}

// The delivery queue's own redrive comes after the deliver function's last
// attempt (which dead-letters the job itself), and its visibility timeout
// outlasts the function, as SQS event sources require.
func TestDeliveryQueue(t *testing.T) {
	tpl := load(t)
	q := tpl.Resources["DeliveryQueue"]
	require.NotNil(t, q)
	var redrive struct {
		MaxReceiveCount int `yaml:"maxReceiveCount"`
	}
	decode(t, q.Prop("RedrivePolicy"), &redrive)
	assert.Greater(t, redrive.MaxReceiveCount, config.DefaultPushMaxAttempts)
	target, ok := samtemplate.RefTarget(q.Prop("RedrivePolicy", "deadLetterTargetArn"))
	require.True(t, ok)
	assert.Equal(t, "DeliveryDeadLetterQueue", target)

	var visibility, timeout int
	decode(t, q.Prop("VisibilityTimeout"), &visibility)
	decode(t, tpl.Resources["DeliverFunction"].Prop("Timeout"), &timeout)
	assert.GreaterOrEqual(t, visibility, 6*timeout, "AWS's advice: six times the consumer's timeout")
}

// iamMatch reports whether an IAM resource pattern (* and ? wildcards)
// matches arn.
func iamMatch(pattern, arn string) bool {
	re := "^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(pattern)) + "$"
	return regexp.MustCompile(re).MatchString(arn)
}

// grants evaluates a function's policy statements for the parameters and
// reports whether it may do action on arn.
func grants(t *testing.T, ev *samtemplate.Evaluator, fn *samtemplate.Resource, action, arn string) bool {
	t.Helper()
	v, err := ev.Eval(fn.Prop("Policies"))
	require.NoError(t, err, fn.Name)
	for _, p := range v.([]any) {
		doc, _ := p.(map[string]any)
		stmts, _ := doc["Statement"].([]any)
		for _, s := range stmts {
			st := s.(map[string]any)
			if st["Effect"] != "Allow" {
				continue
			}
			var actions, resources []any
			for key, into := range map[string]*[]any{"Action": &actions, "Resource": &resources} {
				switch x := st[key].(type) {
				case []any:
					*into = x
				case string:
					*into = []any{x}
				}
			}
			if !slices.Contains(actions, any(action)) {
				continue
			}
			for _, r := range resources {
				if iamMatch(r.(string), arn) {
					return true
				}
			}
		}
	}
	return false
}

// Each function may read exactly the secrets its own environment names
// (through the parameters that hold their references), whether they are
// SSM parameters or Secrets Manager secrets: the public card function
// reads the push signing keys and nothing else, the worker never reads
// the callers' tokens, the tasks function never the LLM key.
func TestEachFunctionReadsOnlyItsSecrets(t *testing.T) {
	tpl := load(t)
	env := environment(t, tpl)
	secretParams := []string{"BearerToken", "BearerTokens", "LlmApiKey", "ProxyToken", "PushSigningKeys", "AgentSettings"}
	for round, kinds := range [][2]string{{"ssm", "secretsmanager"}, {"secretsmanager", "ssm"}} {
		params := map[string]string{}
		arns := map[string]struct{ action, arn, other string }{}
		for i, p := range secretParams {
			name := "a2a-lambda/" + strings.ToLower(p)
			other := "arn:aws:ssm:us-east-1:123456789012:parameter/a2a-lambda/" + strings.ToLower(p)
			if kinds[i%2] == "ssm" {
				params[p] = "ssm:/" + name
				arns[p] = struct{ action, arn, other string }{"ssm:GetParameter", "arn:aws:ssm:us-east-1:123456789012:parameter/" + name,
					"arn:aws:secretsmanager:us-east-1:123456789012:secret:" + name + "-AbCdEf"}
			} else {
				params[p] = "secretsmanager:" + name
				arns[p] = struct{ action, arn, other string }{"secretsmanager:GetSecretValue", "arn:aws:secretsmanager:us-east-1:123456789012:secret:" + name + "-AbCdEf", other}
			}
		}
		ev := samtemplate.NewEvaluator(tpl.Root, params)
		for _, fn := range tpl.OfType("AWS::Serverless::Function") {
			want := map[string]bool{}
			for _, name := range config.SecretVariables() {
				if p, ok := samtemplate.RefTarget(env[fn.Name][name]); ok {
					want[p] = true
				}
			}
			for _, p := range secretParams {
				a := arns[p]
				assert.Equal(t, want[p], grants(t, ev, fn, a.action, a.arn), "round %d: %s reading %s (%s)", round, fn.Name, p, params[p])
				other := "secretsmanager:GetSecretValue"
				if a.action == other {
					other = "ssm:GetParameter"
				}
				assert.False(t, grants(t, ev, fn, other, a.other), "round %d: %s reads a secret of the other kind named like %s", round, fn.Name, p)
			}
			assert.False(t, grants(t, ev, fn, "ssm:GetParameter", "arn:aws:ssm:us-east-1:123456789012:parameter/a2a-lambda/other"), fn.Name)
			assert.False(t, grants(t, ev, fn, "secretsmanager:GetSecretValue", "arn:aws:secretsmanager:us-east-1:123456789012:secret:a2a-lambda/other-AbCdEf"), fn.Name)
		}
		card := tpl.Resources["CardFunction"]
		assert.True(t, grants(t, ev, card, arns["PushSigningKeys"].action, arns["PushSigningKeys"].arn), "the card function serves the JWKS")
	}
}

// Concurrency: the send and worker functions take a reserved concurrency
// when it is set (none by default, which a new account's limit may not
// allow), and the deliver function's queue mapping never scales past its
// maximum, so blocking sends or a burst of webhooks cannot take every
// execution from the worker and MarkFailed.
func TestConcurrencyLimits(t *testing.T) {
	tpl := load(t)
	for _, tc := range []struct {
		params     map[string]string
		send, work any
	}{
		{map[string]string{}, nil, nil},
		{map[string]string{"SendReservedConcurrency": "400", "WorkerReservedConcurrency": "200"}, "400", "200"},
	} {
		ev := samtemplate.NewEvaluator(tpl.Root, tc.params)
		for fn, want := range map[string]any{"SendFunction": tc.send, "WorkerFunction": tc.work} {
			n := tpl.Resources[fn].Prop("ReservedConcurrentExecutions")
			require.NotNil(t, n, fn)
			v, err := ev.Eval(n)
			require.NoError(t, err)
			if want == nil {
				assert.Equal(t, samtemplate.NoValue, v, "%s: no reservation unless asked", fn)
			} else {
				assert.Equal(t, want, v, fn)
			}
		}
		v, err := ev.Eval(tpl.Resources["DeliverQueueMapping"].Prop("ScalingConfig", "MaximumConcurrency"))
		require.NoError(t, err)
		assert.Equal(t, "5", v, "at most 5 deliver functions by default: a new account may have 10 in all")
	}
	for _, fn := range []string{"CardFunction", "TasksFunction", "PushFunction", "DeliverFunction"} {
		assert.Nil(t, tpl.Resources[fn].Prop("ReservedConcurrentExecutions"), fn)
	}
}

// MarkFailed and Expire never give up while the task is not failed: a
// worker that is throttled or down gets retried with capped backoff, then
// again every few minutes, so no task stays working (or waiting) until its
// TTL because one call to fail it failed.
func TestFailingTheTaskIsRetriedUntilItWorks(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "infra", "statemachine.asl.json"))
	require.NoError(t, err)
	var def struct {
		States map[string]struct {
			Type    string `json:"Type"`
			Next    string `json:"Next"`
			Seconds int    `json:"Seconds"`
			Retry   []struct {
				ErrorEquals     []string `json:"ErrorEquals"`
				MaxAttempts     int      `json:"MaxAttempts"`
				MaxDelaySeconds int      `json:"MaxDelaySeconds"`
			} `json:"Retry"`
			Catch []struct {
				ErrorEquals []string `json:"ErrorEquals"`
				Next        string   `json:"Next"`
				ResultPath  string   `json:"ResultPath"`
			} `json:"Catch"`
		} `json:"States"`
	}
	require.NoError(t, json.Unmarshal(b, &def))
	for _, name := range []string{"MarkFailed", "Expire"} {
		st := def.States[name]
		require.Len(t, st.Retry, 1, name)
		assert.Equal(t, []string{"States.ALL"}, st.Retry[0].ErrorEquals, name)
		assert.GreaterOrEqual(t, st.Retry[0].MaxAttempts, 10, name)
		assert.Positive(t, st.Retry[0].MaxDelaySeconds, "%s: the backoff is capped", name)
		require.Len(t, st.Catch, 1, name)
		assert.Equal(t, []string{"States.ALL"}, st.Catch[0].ErrorEquals, name)
		assert.NotEqual(t, "$.error", st.Catch[0].ResultPath, "%s: the retry keeps the error the task fails with", name)
		wait := def.States[st.Catch[0].Next]
		assert.Equal(t, "Wait", wait.Type, name)
		assert.Equal(t, name, wait.Next, "%s: after the wait, the same state again", name)
		assert.Positive(t, wait.Seconds, name)
	}
}

// The table: deletion protection on by default, encrypted with the AWS
// owned key by default or with a customer managed key (whose stream the
// push function may then decrypt).
func TestTableProtection(t *testing.T) {
	tpl := load(t)
	tbl := tpl.Resources["TaskTable"]
	const key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	for _, tc := range []struct {
		params     map[string]string
		protection string
		sse        map[string]any
	}{
		{map[string]string{}, "true", map[string]any{"SSEEnabled": "false"}},
		{map[string]string{"TableDeletionProtection": "false", "TableKmsKeyArn": key}, "false",
			map[string]any{"SSEEnabled": "true", "SSEType": "KMS", "KMSMasterKeyId": key}},
	} {
		ev := samtemplate.NewEvaluator(tpl.Root, tc.params)
		v, err := ev.Eval(tbl.Prop("DeletionProtectionEnabled"))
		require.NoError(t, err)
		assert.Equal(t, tc.protection, v)
		v, err = ev.Eval(tbl.Prop("SSESpecification"))
		require.NoError(t, err)
		assert.Equal(t, tc.sse, v)
		_, withKey := tc.params["TableKmsKeyArn"]
		assert.Equal(t, withKey, grants(t, ev, tpl.Resources["PushFunction"], "kms:Decrypt", key), "the push function decrypts the stream")
	}
}

// Every ARN the stack builds follows the partition it is deployed in
// (aws-cn, aws-us-gov, ...): no "arn:aws:" is written out, and evaluated in
// another partition every policy resource and state machine integration
// is that partition's.
func TestARNsFollowThePartition(t *testing.T) {
	for _, name := range []string{"template.yaml", "infra/statemachine.asl.json"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		assert.NotContains(t, string(b), "arn:aws:", name)
	}
	tpl := load(t)
	ev := samtemplate.NewEvaluator(tpl.Root, map[string]string{"AWS::Partition": "aws-cn", "BearerToken": "ssm:/a2a/token",
		"PushSigningKeys": "secretsmanager:a2a/push", "LlmApiKey": "ssm:/a2a/llm", "ProxyToken": "ssm:/a2a/proxy", "BearerTokens": "ssm:/a2a/tokens"})
	n := 0
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(c, k)
			}
		case []any:
			for _, c := range x {
				walk(c, key)
			}
		case string:
			if key == "Resource" || key == "SourceArn" {
				if strings.HasPrefix(x, "arn:") {
					n++
					assert.True(t, strings.HasPrefix(x, "arn:aws-cn:"), "%s: %s", key, x)
				}
			}
		}
	}
	for _, r := range tpl.OfType("AWS::Serverless::Function") {
		v, err := ev.Eval(r.Prop("Policies"))
		require.NoError(t, err)
		walk(v, "")
	}
	for _, typ := range []string{"AWS::Serverless::StateMachine", "AWS::Lambda::Permission"} {
		for _, r := range tpl.OfType(typ) {
			v, err := ev.Eval(r.Properties)
			require.NoError(t, err)
			walk(v, "")
		}
	}
	sub, err := ev.Eval(tpl.Resources["TaskStateMachine"].Prop("DefinitionSubstitutions", "Partition"))
	require.NoError(t, err)
	assert.Equal(t, "aws-cn", sub)
	b, err := os.ReadFile(filepath.Join(root, "infra", "statemachine.asl.json"))
	require.NoError(t, err)
	for _, m := range regexp.MustCompile(`"Resource": "([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		assert.True(t, strings.HasPrefix(m[1], "arn:${Partition}:states:::"), m[1])
	}
	assert.Greater(t, n, 20, "the policies' ARNs were evaluated")
}

// No stream record holds its shard: the push function dead-letters the
// records that can never become jobs itself (to StreamFailureQueue, see
// TestPoisonRecordGoesToTheDeadLetterQueue in pkg/internal/push/serverless), and
// what it fails (an SQS outage, a crash) is retried a finite number of
// times, bisected down to the record, then left to StreamFailureQueue.
func TestStreamRecordsNeverHoldTheirShard(t *testing.T) {
	tpl := load(t)
	m := tpl.Resources["PushStreamMapping"]
	for prop, want := range map[string]string{"MaximumRecordAgeInSeconds": "-1", "MaximumRetryAttempts": "100", "BisectBatchOnFunctionError": "true"} {
		v, ok := samtemplate.Scalar(m.Prop(prop))
		assert.True(t, ok, prop)
		assert.Equal(t, want, v, prop)
	}
	dest, ok := samtemplate.RefTarget(m.Prop("DestinationConfig", "OnFailure", "Destination"))
	require.True(t, ok)
	assert.Equal(t, "StreamFailureQueue", dest, "what Lambda gives up on is named there")
	dlq, ok := samtemplate.RefTarget(environment(t, tpl)["PushFunction"]["A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL"])
	require.True(t, ok)
	assert.Equal(t, "StreamFailureQueue", dlq, "and what the function dead-letters")
	var types []string
	decode(t, m.Prop("FunctionResponseTypes"), &types)
	assert.Equal(t, []string{"ReportBatchItemFailures"}, types, "a retry starts at the failed record")
}

// The HTTP API answers CORS preflights for the origins of
// CorsAllowedOrigins, with the methods and headers the handlers' own CORS
// answers give (sam local and the local server), never with credentials;
// the functions get the same origins; without origins there is no CORS
// configuration. Every allowed pattern of the parameter is an origin list
// the configuration accepts.
func TestCORSConfiguration(t *testing.T) {
	tpl := load(t)
	api := tpl.Resources["HttpApi"]
	const origins = "https://app.example.com,http://localhost:3000"
	ev := samtemplate.NewEvaluator(tpl.Root, map[string]string{"CorsAllowedOrigins": origins})
	v, err := ev.Eval(api.Prop("CorsConfiguration"))
	require.NoError(t, err)
	cors := v.(map[string]any)
	assert.Equal(t, []any{"https://app.example.com", "http://localhost:3000"}, cors["AllowOrigins"])
	list := func(header string) []any {
		var out []any
		for _, s := range strings.Split(header, ", ") {
			out = append(out, s)
		}
		return out
	}
	assert.Equal(t, list(httpapi.CORSAllowedMethods), cors["AllowMethods"])
	assert.Equal(t, list(httpapi.CORSAllowedHeaders), cors["AllowHeaders"])
	assert.Equal(t, list(httpapi.CORSExposedHeaders), cors["ExposeHeaders"])
	assert.Equal(t, httpapi.CORSMaxAge, cors["MaxAge"])
	assert.Equal(t, "false", cors["AllowCredentials"])

	envs := environment(t, tpl)
	for _, fn := range []string{"CardFunction", "SendFunction", "TasksFunction"} {
		got, err := ev.Eval(envs[fn]["A2A_CORS_ALLOWED_ORIGINS"])
		require.NoError(t, err, fn)
		assert.Equal(t, origins, got, fn)
		cfg, err := config.Load(envtest.Getenv("A2A_CORS_ALLOWED_ORIGINS", got.(string)))
		require.NoError(t, err, "the functions accept the origins the template passes")
		assert.Equal(t, []string{"https://app.example.com", "http://localhost:3000"}, cfg.CORSAllowedOrigins)
	}

	v, err = samtemplate.NewEvaluator(tpl.Root, nil).Eval(api.Prop("CorsConfiguration"))
	require.NoError(t, err)
	assert.Equal(t, samtemplate.NoValue, v, "no origins, no CORS")

	pattern, _ := samtemplate.Scalar(samtemplate.Get(tpl.Root, "Parameters", "CorsAllowedOrigins", "AllowedPattern"))
	re := regexp.MustCompile(pattern)
	for _, ok := range []string{"", "*", "https://a.example.com", "https://a.example.com:8443,http://localhost:3000"} {
		assert.True(t, re.MatchString(ok), ok)
		_, err := config.Load(envtest.Getenv("A2A_CORS_ALLOWED_ORIGINS", ok))
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"https://a.example.com/", "a.example.com", "https://a.example.com, http://b.example", "*,https://a.example.com"} {
		assert.False(t, re.MatchString(bad), bad)
	}
}
