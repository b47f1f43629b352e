// Command minimal is the smallest aws-lambda-go function: the yardstick
// BenchmarkColdStart measures the functions' cold starts against, built with
// the same flags in the same run.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, map[string]any) (string, error) { return "ok", nil })
}
