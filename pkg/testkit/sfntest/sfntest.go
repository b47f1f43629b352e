// Package sfntest runs the project's state machine (infra/statemachine.asl.json)
// on the tests' local AWS stand-in (moto, in parser mode, through
// pkg/testkit/awstest), with a worker function that is either canned (moto
// answers each invocation with the next queued result) or bridged to a real
// handler (moto POSTs each invocation's payload to it; see
// infra/localaws/moto_server_launcher.py).
package sfntest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// roleName is the role the test functions and state machines run as; moto
// checks that it exists.
const roleName = "a2a-lambda-test"

// ensureRole creates the role in moto's IAM (once; it is account-wide) and
// returns its ARN.
func ensureRole(t testing.TB, cfg aws.Config) string {
	c := iam.NewFromConfig(cfg)
	ctx := context.Background()
	out, err := c.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName:                 aws.String(roleName),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":["lambda.amazonaws.com","states.amazonaws.com"]},"Action":"sts:AssumeRole"}]}`),
	})
	if err == nil {
		return aws.ToString(out.Role.Arn)
	}
	var exists *iamtypes.EntityAlreadyExistsException
	require.ErrorAs(t, err, &exists)
	got, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)})
	require.NoError(t, err)
	return aws.ToString(got.Role.Arn)
}

// DefinitionPath is the state machine definition, from the repository root.
const DefinitionPath = "infra/statemachine.asl.json"

// Definition reads the state machine definition.
func Definition(t testing.TB) []byte {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", DefinitionPath))
	require.NoError(t, err)
	return b
}

// Client returns a Step Functions client of the stand-in.
func Client(t testing.TB) *sfn.Client { return sfn.NewFromConfig(awstest.Config(t)) }

// API returns the runner's Step Functions client (pkg/internal/sfncall) of
// the stand-in, made with o.
func API(t testing.TB, o sfncall.Options) *sfncall.Client {
	t.Helper()
	c, err := sfncall.New(awstest.Config(t), o)
	require.NoError(t, err)
	return c
}

// Machine is a state machine of the project's definition, in moto.
type Machine struct {
	ARN      string
	Function string
	// Client is the SDK's client, for what the tests look up; API is the
	// runner's.
	Client *sfn.Client
	API    *sfncall.Client
	t      testing.TB
}

// New creates a worker function (Function) and a state machine calling it.
// With a nil handler each invocation returns its input (moto without
// Docker); otherwise each invocation is POSTed to handler, served on a
// loopback listener.
func New(t testing.TB, handler http.Handler) *Machine {
	ctx := context.Background()
	cfg := awstest.Config(t)
	name, arn := Function(t, handler)
	def := strings.NewReplacer("${WorkerFunctionArn}", arn, "${Partition}", "aws").Replace(string(Definition(t)))
	c := Client(t)
	sm, err := c.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String(name), Definition: aws.String(def), RoleArn: aws.String(ensureRole(t, cfg)),
	})
	require.NoError(t, err)
	return &Machine{ARN: aws.ToString(sm.StateMachineArn), Function: name, Client: c, API: API(t, sfncall.Options{}), t: t}
}

// Function creates a Lambda function in moto and returns its name and ARN.
// With a nil handler each invocation returns its input (moto without
// Docker); otherwise each invocation is POSTed to handler, served on a
// loopback listener: synchronous ones (the state machine's) wait for its
// answer, asynchronous ones (InvocationType Event) are answered 202 at once
// and POSTed from moto's background, as Lambda queues them.
func Function(t testing.TB, handler http.Handler) (name, arn string) {
	ctx := context.Background()
	cfg := awstest.Config(t)
	name = strings.ReplaceAll(awstest.UniqueName(t, "worker"), ".", "-")
	if len(name) > 64 {
		name = name[len(name)-64:]
	}
	env := map[string]string{}
	if handler != nil {
		env["MOTO_LAMBDA_BRIDGE_URL"] = newServer(t, handler)
	}
	fn, err := lambda.NewFromConfig(cfg).CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName: aws.String(name),
		Role:         aws.String(ensureRole(t, cfg)),
		Runtime:      lambdatypes.RuntimeProvidedal2023,
		Handler:      aws.String("bootstrap"),
		Code:         &lambdatypes.FunctionCode{ZipFile: emptyZip},
		Environment:  &lambdatypes.Environment{Variables: env},
	})
	require.NoError(t, err)
	return name, aws.ToString(fn.FunctionArn)
}

// emptyZip is a zip archive with no entries: moto stores the code, never
// runs it.
var emptyZip = []byte{0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// Start starts an execution with input.
func (m *Machine) Start(name string, input any) string {
	b, err := json.Marshal(input)
	require.NoError(m.t, err)
	out, err := m.Client.StartExecution(context.Background(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(m.ARN), Name: aws.String(name), Input: aws.String(string(b)),
	})
	require.NoError(m.t, err)
	return aws.ToString(out.ExecutionArn)
}

// Wait polls an execution until it is no longer RUNNING and returns its
// status, or fails the test after timeout.
func (m *Machine) Wait(arn string, timeout time.Duration) sfntypes.ExecutionStatus {
	var status sfntypes.ExecutionStatus
	require.Eventually(m.t, func() bool {
		d, err := m.Client.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		require.NoError(m.t, err)
		status = d.Status
		return status != sfntypes.ExecutionStatusRunning
	}, timeout, 50*time.Millisecond, "execution %s still running", arn)
	return status
}

// Invocation is one worker invocation of an execution, with the state that
// made it.
type Invocation struct {
	State   string
	Payload map[string]any
}

// History returns an execution's states entered, in order, and the worker
// invocations they made.
func (m *Machine) History(arn string) (states []string, calls []Invocation) {
	out, err := m.Client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
	require.NoError(m.t, err)
	state := ""
	for _, e := range out.Events {
		if d := e.StateEnteredEventDetails; d != nil {
			state = aws.ToString(d.Name)
			states = append(states, state)
		}
		if d := e.TaskScheduledEventDetails; d != nil {
			var p struct {
				Payload map[string]any `json:"Payload"`
			}
			require.NoError(m.t, json.Unmarshal([]byte(aws.ToString(d.Parameters)), &p))
			calls = append(calls, Invocation{State: state, Payload: p.Payload})
		}
	}
	return states, calls
}

// TaskToken waits until the execution waits on a task token and returns it,
// read from the AwaitInput invocation in the execution's history.
func (m *Machine) TaskToken(arn string, timeout time.Duration) string {
	var token string
	require.Eventually(m.t, func() bool {
		_, calls := m.History(arn)
		for i := len(calls) - 1; i >= 0; i-- {
			if tok, ok := calls[i].Payload["taskToken"].(string); ok {
				token = tok
				return true
			}
		}
		return false
	}, timeout, 50*time.Millisecond, "execution %s never waited on a token", arn)
	return token
}

func (m *Machine) String() string { return fmt.Sprintf("state machine %s", m.ARN) }
