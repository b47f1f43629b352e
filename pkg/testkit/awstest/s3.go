package awstest

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Bucket creates an S3 bucket in the stand-in, named for the test (S3's
// rules: lower case, at most 63 characters), and returns its name.
func Bucket(t testing.TB) string {
	t.Helper()
	name := strings.Trim(strings.ToLower(strings.NewReplacer("_", "-", "/", "-", ".", "-").Replace(UniqueName(t, "files"))), "-")
	if len(name) > 63 {
		name = strings.Trim(name[len(name)-63:], "-")
	}
	client := s3.NewFromConfig(Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("awstest: create bucket %s: %v", name, err)
	}
	return name
}
