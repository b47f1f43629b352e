package metrics

import (
	"fmt"
	"io"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
)

// DefaultNamespace is the CloudWatch namespace without A2A_METRICS_NAMESPACE.
const DefaultNamespace = "A2A"

// FromEnv returns the sink the environment asks for, writing to out:
// A2A_METRICS=emf or off (default emf inside Lambda, where
// AWS_LAMBDA_FUNCTION_NAME is set, off elsewhere), A2A_METRICS_NAMESPACE
// (default A2A) and A2A_METRICS_SERVICE, the value of the static Service
// dimension on every metric (default a2a; the template sets the stack
// name), and A2A_METRICS_DYNAMODB=true to record DynamoDB's capacity by
// operation (default false: AWS/DynamoDB totals it per table and index for
// free, and each operation past an invocation's first would add it a log
// line). A nil sink means metrics are off.
func FromEnv(getenv func(string) string, out io.Writer, clk clock.Clock) (*Sink, error) {
	mode := strings.ToLower(strings.TrimSpace(getenv("A2A_METRICS")))
	if mode == "" {
		mode = "off"
		if getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
			mode = "emf"
		}
	}
	switch mode {
	case "off":
		return nil, nil
	case "emf":
	default:
		return nil, fmt.Errorf("A2A_METRICS=%q: use emf or off", mode)
	}
	// An empty namespace is DefaultNamespace (New).
	ns := strings.TrimSpace(getenv("A2A_METRICS_NAMESPACE"))
	svc := strings.TrimSpace(getenv("A2A_METRICS_SERVICE"))
	if svc == "" {
		svc = "a2a"
	}
	var capacity bool
	switch v := strings.ToLower(strings.TrimSpace(getenv("A2A_METRICS_DYNAMODB"))); v {
	case "", "false":
	case "true":
		capacity = true
	default:
		return nil, fmt.Errorf("A2A_METRICS_DYNAMODB=%q: use true or false", v)
	}
	return New(Config{Namespace: ns, Dimensions: map[string]string{"Service": svc}, Out: out, Clock: clk, Capacity: capacity}), nil
}
