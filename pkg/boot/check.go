package boot

import (
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
)

// CheckLambdaStore refuses what no Lambda function that keeps tasks or
// sends webhooks can work with: a store that forgets, and the local
// development switch for webhooks.
func CheckLambdaStore(cfg config.Config) error {
	var errs []error
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		errs = append(errs, fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: a Lambda function forgets everything between invocations; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend))
	}
	if cfg.Push.AllowInsecure {
		errs = append(errs, errors.New("A2A_PUSH_ALLOW_INSECURE=true is for local development: in Lambda, loopback reaches the Lambda Runtime API"))
	}
	return errors.Join(errs...)
}
