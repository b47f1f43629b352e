// Package awstrace makes each AWS SDK call a span of pkg/internal/tracing (kept
// apart so that pkg/internal/tracing imports nothing of the AWS SDK).
package awstrace

import (
	"context"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
)

// Middleware makes each AWS SDK call a span named by its service
// (namespace aws), with its operation. Add it to aws.Config.APIOptions.
func Middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("a2aTracing",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			ctx, span := tracing.Start(ctx, awsmiddleware.GetServiceID(ctx), "aws")
			if span == nil {
				return next.HandleInitialize(ctx, in)
			}
			span.SetOperation(awsmiddleware.GetOperationName(ctx))
			out, md, err := next.HandleInitialize(ctx, in)
			span.End(err)
			return out, md, err
		}), middleware.After)
}
