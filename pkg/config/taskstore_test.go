package config_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
)

func load(env map[string]string) (config.Config, error) {
	return config.Load(func(k string) string { return env[k] })
}

func TestTaskStoreDefaults(t *testing.T) {
	c, err := load(nil)
	require.NoError(t, err)
	assert.Equal(t, config.TaskStore{Backend: config.BackendMemory, TTL: 7 * 24 * time.Hour, MaxTasks: 10000, MaxBytes: 256 << 20}, c.TaskStore)
	assert.Equal(t, config.AWS{}, c.AWS)
	assert.Empty(t, c.ConfiguredPublicURL)
	assert.Equal(t, "http://127.0.0.1:8000", c.PublicURL)
}

func TestTaskStoreSettings(t *testing.T) {
	c, err := load(map[string]string{
		"A2A_TASK_STORE_BACKEND":      "DynamoDB",
		"A2A_TASK_STORE_TABLE":        "a2a-tasks.prod_1",
		"A2A_TASK_STORE_CREATE_TABLE": "true",
		"A2A_TASK_TTL_SECONDS":        "3600",
		"AWS_DEFAULT_REGION":          "eu-west-1",
		"AWS_ENDPOINT_URL":            "http://127.0.0.1:5000",
		"A2A_PUBLIC_URL":              "https://agents.example.com/a2a/",
	})
	require.NoError(t, err)
	assert.Equal(t, config.TaskStore{Backend: config.BackendDynamoDB, Table: "a2a-tasks.prod_1", CreateTable: true, TTL: time.Hour, MaxTasks: 10000, MaxBytes: 256 << 20}, c.TaskStore)
	assert.Equal(t, config.AWS{Region: "eu-west-1", EndpointURL: "http://127.0.0.1:5000"}, c.AWS)
	assert.Equal(t, time.Hour, c.InterruptTTL, "the default interrupt TTL stays within a shorter task TTL")
	assert.Equal(t, "https://agents.example.com/a2a", c.ConfiguredPublicURL)
	assert.Equal(t, c.ConfiguredPublicURL, c.PublicURL)

	c, err = load(map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "tasks", "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "eu-west-1"})
	require.NoError(t, err)
	assert.Equal(t, "us-east-1", c.AWS.Region, "AWS_REGION wins over AWS_DEFAULT_REGION")
}

// A missing or contradictory setting stops start-up with a message that
// names the variable; every bad variable is reported at once.
func TestTaskStoreErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"unknown backend", map[string]string{"A2A_TASK_STORE_BACKEND": "redis"}, []string{"A2A_TASK_STORE_BACKEND", "memory or dynamodb"}},
		{"dynamodb without table or region", map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb"},
			[]string{"A2A_TASK_STORE_TABLE is required", "AWS_REGION is required"}},
		{"bad table name", map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "no spaces", "AWS_REGION": "us-east-1"},
			[]string{`A2A_TASK_STORE_TABLE="no spaces"`}},
		{"table without dynamodb", map[string]string{"A2A_TASK_STORE_TABLE": "tasks"}, []string{"A2A_TASK_STORE_TABLE", "A2A_TASK_STORE_BACKEND is memory"}},
		{"create table without dynamodb", map[string]string{"A2A_TASK_STORE_CREATE_TABLE": "true"}, []string{"A2A_TASK_STORE_CREATE_TABLE", "needs A2A_TASK_STORE_BACKEND=dynamodb"}},
		{"bad create table", map[string]string{"A2A_TASK_STORE_CREATE_TABLE": "yes please"}, []string{"A2A_TASK_STORE_CREATE_TABLE", "true or false"}},
		{"ttl too short", map[string]string{"A2A_TASK_TTL_SECONDS": "5"}, []string{"A2A_TASK_TTL_SECONDS", "from 60"}},
		{"ttl not a number", map[string]string{"A2A_TASK_TTL_SECONDS": "7d"}, []string{"A2A_TASK_TTL_SECONDS"}},
		{"bad endpoint", map[string]string{"AWS_ENDPOINT_URL": "localhost:5000"}, []string{"AWS_ENDPOINT_URL", "absolute http(s) URL"}},
		{"bad public url", map[string]string{"A2A_PUBLIC_URL": "ftp://x"}, []string{"A2A_PUBLIC_URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.env)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	// A bad A2A_PUBLIC_URL is reported once.
	_, err := load(map[string]string{"A2A_PUBLIC_URL": "ftp://x"})
	assert.Equal(t, 1, countLines(err.Error()))
}

func countLines(s string) int {
	n := 1
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}
