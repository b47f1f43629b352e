// Package setup builds, from the configuration, the parts that the local
// server and the Lambda functions that keep tasks share: the DynamoDB task
// store (store.go; on pkg/dynamodb, no service client of the AWS SDK), the
// options of the task service, its executor and files (service.go), and
// the push pipeline's webhook check, issuer, bodies, retry policy and
// deliverer (push.go).
package setup
