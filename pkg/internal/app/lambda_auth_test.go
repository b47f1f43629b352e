package app_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// withJWT returns ev as API Gateway passes it on a route with a JWT
// authorizer: the token in the header (opaque to the function) and the
// claims the authorizer verified in the request context. No subject means
// a route without authorizer.
func withJWT(ev events.APIGatewayV2HTTPRequest, sub string) events.APIGatewayV2HTTPRequest {
	ev.Headers = map[string]string{"authorization": "Bearer eyJhbGciOiJSUzI1NiJ9.opaque.signature", "content-type": "application/json"}
	ev.RequestContext.Authorizer = nil
	if sub != "" {
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{
				Claims: map[string]string{"sub": sub, "iss": "https://issuer.example.com", "aud": "a2a"},
				Scopes: []string{"a2a"},
			},
		}
	}
	return ev
}

// With A2A_AUTH=jwt, the functions start without bearer tokens, take the
// caller from the JWT's sub claim that API Gateway verified, and scope
// tasks to it; a request without verified claims is refused.
func TestJWTMode(t *testing.T) {
	env := lambdaEnv(t)
	delete(env, "A2A_BEARER_TOKEN")
	env["A2A_AUTH"] = "jwt"
	send := startFunction(t, env, httpapi.RoutesRPC)
	tasks := startFunction(t, env, httpapi.RoutesTasks)

	resp, err := send(context.Background(), withJWT(loadEvent(t, "send/rest-message-send.json"), "alice"))
	require.NoError(t, err)
	var task a2a.Task
	restResult(t, resp, &task)
	rec, err := storeOf(t, env).GetTask(context.Background(), task.ID, store.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "jwt:alice", rec.Owner, "the owner is the token's subject")

	get := loadEvent(t, "tasks/rest-tasks-get.json")
	get.RawPath, get.RawQueryString = "/rest/v1/tasks/"+task.ID, ""
	get.RequestContext.HTTP.Path = get.RawPath
	for _, tc := range []struct {
		name   string
		fn     lambdaFn
		event  events.APIGatewayV2HTTPRequest
		status int
	}{
		{"the owner reads the task", tasks, withJWT(get, "alice"), 200},
		{"another subject does not see it", tasks, withJWT(get, "bob"), 404},
		{"nor does the subject padded with a space", tasks, withJWT(get, " alice"), 404},
		{"nor the subject with a trailing space", tasks, withJWT(get, "alice "), 404},
		{"a blank subject is refused", tasks, withJWT(get, "  "), 401},
		{"no verified claims: a route without the authorizer", tasks, withJWT(get, ""), 401},
		{"a bearer-mode token is not a credential", send, loadEvent(t, "send/jsonrpc-tasks-get.json"), 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.fn(context.Background(), tc.event)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode, resp.Body)
			if tc.status == 200 {
				var got a2a.Task
				require.NoError(t, json.Unmarshal(body(t, resp), &got))
				assert.Equal(t, task.ID, got.ID)
			}
		})
	}

	env["A2A_BEARER_TOKEN"] = "test-token-16-ch"
	_, err = httpfn.New(context.Background(), getenv(env), builtin.Registry(), httpapi.RoutesRPC, io.Discard)
	assert.ErrorContains(t, err, "A2A_AUTH=jwt identifies callers by API Gateway's JWT authorizer")
}

// A deployed function's token lives in SSM or Secrets Manager: the
// environment names it, the function reads it at cold start and serves the
// sample events, which carry the token itself. A reference that cannot be
// read stops the cold start, naming the variable.
func TestSecretReferences(t *testing.T) {
	cfg := awstest.Config(t)
	name := "/" + awstest.UniqueName(t, "lambda")
	_, err := ssm.NewFromConfig(cfg).PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String(name + "/bearer-token"), Value: aws.String(eventsToken), Type: ssmtypes.ParameterTypeSecureString,
	})
	require.NoError(t, err)
	secret, err := secretsmanager.NewFromConfig(cfg).CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{
		Name: aws.String(name[1:] + "/tokens"), SecretString: aws.String("ops:ops-token-of-16-chars"),
	})
	require.NoError(t, err)

	env := lambdaEnv(t)
	env["A2A_BEARER_TOKEN"] = "ssm:" + name + "/bearer-token"
	env["A2A_BEARER_TOKENS"] = "secretsmanager:" + *secret.ARN
	send := startFunction(t, env, httpapi.RoutesRPC)
	for tok, status := range map[string]int{eventsToken: 200, "ops-token-of-16-chars": 200, "ssm:" + name + "/bearer-token": 401} {
		ev := loadEvent(t, "send/jsonrpc-tasks-list.json")
		ev.Headers["authorization"] = "Bearer " + tok
		resp, err := send(context.Background(), ev)
		require.NoError(t, err)
		assert.Equal(t, status, resp.StatusCode, "token %q", tok)
	}

	env["A2A_BEARER_TOKEN"] = "ssm:" + name + "/missing"
	_, err = httpfn.New(context.Background(), getenv(env), builtin.Registry(), httpapi.RoutesRPC, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "A2A_BEARER_TOKEN: ssm:"+name+"/missing")
	assert.NotContains(t, err.Error(), eventsToken)
}
