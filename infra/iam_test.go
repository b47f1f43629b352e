package infra_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// iamService is one service of cfn-lint's copy of the Service Authorization
// Reference (cfnlint/data/AdditionalSpecs/Policies.json): the resource
// types each action is evaluated on, and the ARN formats of each type.
type iamService struct {
	Actions map[string]struct {
		Resources []string `json:"Resources"`
	} `json:"Actions"`
	Resources map[string]struct {
		ARNFormats []string `json:"ARNFormats"`
	} `json:"Resources"`
}

// iamReference loads cfn-lint's copy of the Service Authorization Reference.
func iamReference(t *testing.T) map[string]iamService {
	t.Helper()
	python := transformTool(t)
	out, err := exec.Command(python, "-c", "import cfnlint.data.AdditionalSpecs as s, os; print(os.path.join(os.path.dirname(s.__file__), 'Policies.json'))").CombinedOutput()
	require.NoError(t, err, string(out))
	b, err := os.ReadFile(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	var ref map[string]iamService
	require.NoError(t, json.Unmarshal(b, &ref))
	require.Contains(t, ref, "states")
	return ref
}

// arnPattern turns an ARN format of the reference (arn:${Partition}:states:
// ${Region}:${Account}:execution:.*) into a pattern.
func arnPattern(format string) *regexp.Regexp {
	parts := regexp.MustCompile(`\$\{[A-Za-z]+\}`).Split(format, -1)
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(regexp.QuoteMeta(p), `\.\*`, `.*`)
	}
	return regexp.MustCompile("^" + strings.Join(parts, "[^:]+") + "$")
}

// Every statement grants what IAM evaluates, as the Service Authorization
// Reference (cfn-lint's copy of it) lists: an action evaluated on no
// resource type (states:SendTaskSuccess and SendTaskFailure: the task token
// is the authority) is granted on '*', since an ARN there never matches;
// every other action only on ARNs of the types it is evaluated on, never
// on '*'.
func TestPoliciesGrantWhatIAMEvaluates(t *testing.T) {
	ref := iamReference(t)
	tpl := load(t)
	// The stack's own resources, as ARNs (the evaluator gives "Name" and
	// "Name.Attr").
	arns := map[string]string{
		"TaskTable.Arn":       "arn:aws:dynamodb:us-east-1:123456789012:table/a2a-lambda-TaskTable-1ABC",
		"TaskTable.StreamArn": "arn:aws:dynamodb:us-east-1:123456789012:table/a2a-lambda-TaskTable-1ABC/stream/2026-11-22T10:00:00.000",
		"TaskStateMachine":    "arn:aws:states:us-east-1:123456789012:stateMachine:TaskStateMachine-AbC123",
		"WorkerFunction.Arn":  "arn:aws:lambda:us-east-1:123456789012:function:a2a-lambda-WorkerFunction-AbC123",
		"FilesBucket.Arn":     "arn:aws:s3:::a2a-lambda-filesbucket-abc123",
	}
	for _, q := range []string{"DeliveryQueue", "DeliveryDeadLetterQueue", "StreamFailureQueue"} {
		arns[q+".Arn"] = "arn:aws:sqs:us-east-1:123456789012:a2a-lambda-" + q + "-AbC123"
	}
	overrides := map[string]string{"TaskStateMachine": arns["TaskStateMachine"], "TaskStateMachine.Name": "TaskStateMachine-AbC123",
		"TaskTable.Arn": arns["TaskTable.Arn"], "BearerToken": "ssm:/a2a/token", "BearerTokens": "secretsmanager:a2a/tokens",
		"PushSigningKeys": "secretsmanager:a2a/push", "LlmApiKey": "ssm:/a2a/llm", "ProxyToken": "ssm:/a2a/proxy",
		"SecretsKmsKeyArn": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
		"TableKmsKeyArn":   "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"}
	ev := samtemplate.NewEvaluator(tpl.Root, overrides)
	var policies []*samtemplate.Resource
	policies = append(policies, tpl.OfType("AWS::Serverless::Function")...)
	policies = append(policies, tpl.OfType("AWS::Serverless::StateMachine")...)
	checked := 0
	for _, r := range policies {
		v, err := ev.Eval(r.Prop("Policies"))
		require.NoError(t, err, r.Name)
		for _, stmt := range statements(v) {
			actions, resources := strings_(stmt["Action"]), strings_(stmt["Resource"])
			for i, res := range resources {
				// A resource of the stack, or a path under it
				// (${FilesBucket.Arn}/files/*).
				name, rest, _ := strings.Cut(res, "/")
				if arn, ok := arns[name]; ok {
					resources[i] = strings.TrimSuffix(arn+"/"+rest, "/")
				}
			}
			for _, action := range actions {
				svc, name, _ := strings.Cut(action, ":")
				a, ok := ref[svc].Actions[strings.ToLower(name)]
				require.True(t, ok, "%s %s: %s is not an IAM action", r.Name, stmt["Sid"], action)
				checked++
				if len(a.Resources) == 0 {
					assert.Equal(t, []string{"*"}, resources, "%s %s: IAM evaluates %s on no resource, so only Resource '*' grants it", r.Name, stmt["Sid"], action)
					continue
				}
				for _, res := range resources {
					matched := false
					for _, typ := range a.Resources {
						for rt, r := range ref[svc].Resources {
							if !strings.EqualFold(rt, typ) { // the copy spells some types in two cases
								continue
							}
							for _, f := range r.ARNFormats {
								matched = matched || arnPattern(f).MatchString(res)
							}
						}
					}
					assert.True(t, matched, "%s %s: %s is evaluated on %v, which %s is not", r.Name, stmt["Sid"], action, a.Resources, res)
				}
			}
		}
	}
	assert.Greater(t, checked, 50, "the policies' actions were checked")
}

// statements returns the statements of an evaluated Policies list.
func statements(v any) []map[string]any {
	var out []map[string]any
	for _, p := range v.([]any) {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		for _, s := range m["Statement"].([]any) {
			if st, ok := s.(map[string]any); ok {
				out = append(out, st)
			}
		}
	}
	return out
}

// strings_ returns an evaluated Action or Resource as a list.
func strings_(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, s := range x {
			if str, ok := s.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// Lambda's JSON log format drops the lines below the function's
// ApplicationLogLevel: LogLevel=debug lowers it to DEBUG, so that debug lines
// reach CloudWatch; at every other LogLevel it is INFO, since Lambda reads a
// line without a level (the EMF metric lines) as INFO and a higher level
// would drop the metrics.
func TestDebugLogsReachCloudWatch(t *testing.T) {
	tpl := load(t)
	for level, want := range map[string]string{"debug": "DEBUG", "info": "INFO", "warn": "INFO", "error": "INFO"} {
		ev := samtemplate.NewEvaluator(tpl.Root, map[string]string{"LogLevel": level})
		for _, fn := range tpl.OfType("AWS::Serverless::Function") {
			lc, err := ev.Eval(fn.Prop("LoggingConfig"))
			require.NoError(t, err, fn.Name)
			m := lc.(map[string]any)
			assert.Equal(t, "JSON", m["LogFormat"], fn.Name)
			assert.Equal(t, want, m["ApplicationLogLevel"], "%s with LogLevel=%s", fn.Name, level)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "A2A_LOG_LEVEL: !Ref LogLevel", "the functions filter the levels above INFO themselves")
}
