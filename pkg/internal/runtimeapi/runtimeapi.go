// Package runtimeapi speaks the one part of the Lambda Runtime API that
// aws-lambda-go leaves out: reporting that a function could not start.
// Without it a cold start that fails (bad configuration, an unreadable
// secret) shows up only as "Runtime exited"; with it, Lambda records the
// reason as the invocation's error.
package runtimeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// EnvAPI is the variable through which Lambda tells a custom runtime where
// its Runtime API listens (host:port).
const EnvAPI = "AWS_LAMBDA_RUNTIME_API"

// ErrorTypeInit is the errorType of a failed cold start.
const ErrorTypeInit = "Runtime.InitError"

// InitError is the body of an init error report.
type InitError struct {
	ErrorMessage string   `json:"errorMessage"`
	ErrorType    string   `json:"errorType"`
	StackTrace   []string `json:"stackTrace"`
}

// ReportInitError posts cause to POST /2018-06-01/runtime/init/error of the
// Runtime API at api (host:port). The process should exit afterwards.
func ReportInitError(ctx context.Context, client *http.Client, api string, cause error) error {
	body, err := json.Marshal(InitError{ErrorMessage: cause.Error(), ErrorType: ErrorTypeInit, StackTrace: []string{}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+api+"/2018-06-01/runtime/init/error", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("runtimeapi: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Lambda-Runtime-Function-Error-Type", ErrorTypeInit)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("runtimeapi: report the init error: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("runtimeapi: report the init error: HTTP %d", resp.StatusCode)
	}
	return nil
}
