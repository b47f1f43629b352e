package infra_test

import (
	"os"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// The stream filter and Step Functions tests run on the local AWS stand-in.
func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }
