package infra_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// physicalName is the property that names each kind of resource the
// template makes (its physical name, unique in an account and region, or
// for a dashboard in the account), "" for the kinds that have none or
// whose name CloudFormation makes up, or that name what the user chose (a
// custom domain, its record). A kind of resource not listed fails the test
// below: say which it is.
var physicalName = map[string]string{
	"AWS::Lambda::Function":            "FunctionName",
	"AWS::IAM::Role":                   "RoleName",
	"AWS::IAM::ManagedPolicy":          "ManagedPolicyName",
	"AWS::SQS::Queue":                  "QueueName",
	"AWS::DynamoDB::Table":             "TableName",
	"AWS::StepFunctions::StateMachine": "StateMachineName",
	"AWS::Logs::LogGroup":              "LogGroupName",
	"AWS::CloudWatch::Dashboard":       "DashboardName",
	"AWS::CloudWatch::Alarm":           "AlarmName",
	"AWS::Scheduler::Schedule":         "Name",
	"AWS::ApiGatewayV2::Api":           "",
	"AWS::ApiGatewayV2::ApiMapping":    "",
	"AWS::ApiGatewayV2::Authorizer":    "",
	"AWS::ApiGatewayV2::DomainName":    "", // the DomainName parameter
	"AWS::ApiGatewayV2::Integration":   "",
	"AWS::ApiGatewayV2::Route":         "",
	"AWS::ApiGatewayV2::Stage":         "",
	"AWS::Lambda::EventInvokeConfig":   "",
	"AWS::Lambda::EventSourceMapping":  "",
	"AWS::Lambda::Permission":          "",
	"AWS::Route53::RecordSet":          "", // the DomainName parameter
}

// Two stacks of the template in one account and region (and, for the
// dashboard, one account) share no physical name: the template as
// CloudFormation gets it (after the SAM transform) names nothing the same
// for stacks "alpha" and "beta", so a second stack deploys beside a first.
// The properties a name may not repeat in are checked by type: HTTP APIs
// and IAM policy names inside a role may repeat.
func TestTwoStacksShareNoName(t *testing.T) {
	python := transformTool(t)
	dir := copyProject(t, nil)
	out, err := transform(t, python, dir)
	require.NoError(t, err, out)
	b, err := os.ReadFile(filepath.Join(dir, "out", "template.json"))
	require.NoError(t, err)
	tpl, err := samtemplate.Parse(b)
	require.NoError(t, err)
	stack := func(name, uuid, region string) *samtemplate.Evaluator {
		return samtemplate.NewEvaluator(tpl.Root, map[string]string{"AWS::StackName": name, "AWS::Region": region,
			"AWS::StackId": "arn:aws:cloudformation:" + region + ":123456789012:stack/" + name + "/" + uuid})
	}
	names := func(ev *samtemplate.Evaluator) map[string]string {
		out := map[string]string{}
		for id, r := range tpl.Resources {
			p, known := physicalName[r.Type]
			require.True(t, known, "%s: say whether a %s has a physical name (physicalName)", id, r.Type)
			if p == "" || r.Prop(p) == nil {
				continue // CloudFormation makes its name up, unique
			}
			v, err := ev.Eval(r.Prop(p))
			require.NoError(t, err, "%s.%s", id, p)
			if s, ok := v.(string); ok && s != "" {
				out[id+"."+p] = s
			}
		}
		return out
	}
	alpha := names(stack("alpha", "11111111-2222-3333-4444-555555555555", "us-east-1"))
	beta := names(stack("beta", "66666666-7777-8888-9999-000000000000", "us-east-1"))
	require.NotEmpty(t, alpha)
	for id, n := range alpha {
		assert.NotEqual(t, n, beta[id], "%s is named %q in both stacks", id, n)
		assert.False(t, slices.Contains(mapValues(beta), n), "%s's name %q is taken by the other stack", id, n)
	}
	// Dashboards are global to the account: the same stack name in
	// another region names it apart.
	west := names(stack("alpha", "99999999-2222-3333-4444-555555555555", "eu-west-1"))
	for id, n := range alpha {
		if strings.HasSuffix(id, ".DashboardName") {
			assert.NotEqual(t, n, west[id], "%s in two regions", id)
		}
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
