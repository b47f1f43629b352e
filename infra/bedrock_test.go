package infra_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// With LlmProvider=bedrock, the functions that run the agent (send,
// worker, sweep) and only they may invoke the chosen model and the allowed
// ones, as foundation models or inference profiles of the stack's region,
// with bedrock:InvokeModel (the action Converse needs), and no other
// model; with the default provider no function may invoke any.
func TestBedrockGrantsTheChosenModelsOnly(t *testing.T) {
	tpl := load(t)
	const (
		fm = "arn:aws:bedrock:eu-west-1::foundation-model/"
		ip = "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/"
	)
	for _, tc := range []struct {
		allowed string
		may     []string
	}{
		{"", []string{fm + "anthropic.claude-3-haiku-20240307-v1:0", ip + "anthropic.claude-3-haiku-20240307-v1:0"}},
		{"amazon.nova-micro-v1:0,eu.amazon.nova-lite-v1:0", []string{fm + "anthropic.claude-3-haiku-20240307-v1:0", fm + "amazon.nova-micro-v1:0", ip + "eu.amazon.nova-lite-v1:0"}},
	} {
		ev := samtemplate.NewEvaluator(tpl.Root, map[string]string{"AWS::Region": "eu-west-1", "AWS::AccountId": "123456789012",
			"LlmProvider": "bedrock", "LlmModel": "anthropic.claude-3-haiku-20240307-v1:0", "LlmAllowedModels": tc.allowed})
		doc, err := ev.Eval(tpl.Resources["LlmModelPolicy"].Prop("PolicyDocument"))
		require.NoError(t, err)
		stmts := doc.(map[string]any)["Statement"].([]any)
		require.Len(t, stmts, 1)
		st := stmts[0].(map[string]any)
		assert.Equal(t, "bedrock:InvokeModel", st["Action"])
		may := func(arn string) bool {
			for _, r := range st["Resource"].([]any) {
				if iamMatch(r.(string), arn) {
					return true
				}
			}
			return false
		}
		for _, arn := range tc.may {
			assert.True(t, may(arn), "allowed %q: %s", tc.allowed, arn)
		}
		for _, arn := range []string{fm + "anthropic.claude-3-opus-20240229-v1:0", ip + "anthropic.claude-3-opus-20240229-v1:0", "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0"} {
			assert.False(t, may(arn), "allowed %q: %s", tc.allowed, arn)
		}
	}
	assert.Equal(t, "UseBedrock", tpl.Resources["LlmModelPolicy"].Condition, "no policy without Bedrock")

	for provider, runners := range map[string][]string{"bedrock": {"SendFunction", "WorkerFunction", "SweepFunction"}, "openai": nil} {
		ev := samtemplate.NewEvaluator(tpl.Root, map[string]string{"LlmProvider": provider})
		for _, fn := range tpl.OfType("AWS::Serverless::Function") {
			v, err := ev.Eval(fn.Prop("Policies"))
			require.NoError(t, err, fn.Name)
			assert.Equal(t, slices.Contains(runners, fn.Name), slices.Contains(v.([]any), any("LlmModelPolicy")), "%s with LlmProvider=%s", fn.Name, provider)
		}
	}
}
