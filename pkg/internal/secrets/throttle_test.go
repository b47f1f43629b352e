package secrets_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets"
)

// fakeSSM answers GetParameter as SSM does when a burst of cold starts
// spends the account's 40 calls a second: each parameter is refused with a
// ThrottlingException its first `throttle` times, then read. It also
// records whether the first reads of all parameters were in flight at
// once.
type fakeSSM struct {
	throttle int
	values   map[string]string
	mu       sync.Mutex
	calls    map[string]int
	// arrived counts the parameters whose first read came in; all is
	// closed once every parameter's did.
	arrived int
	all     chan struct{}
	apart   bool
}

func newFakeSSM(t *testing.T, throttle int, values map[string]string) (*fakeSSM, string) {
	f := &fakeSSM{throttle: throttle, values: values, calls: map[string]int{}, all: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func (f *fakeSSM) serve(w http.ResponseWriter, r *http.Request) {
	var in struct{ Name string }
	if r.Header.Get("X-Amz-Target") != "AmazonSSM.GetParameter" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "not GetParameter", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls[in.Name]++
	n := f.calls[in.Name]
	if n == 1 {
		if f.arrived++; f.arrived == len(f.values) {
			close(f.all)
		}
	}
	f.mu.Unlock()
	if n == 1 {
		// The first read of each parameter waits for the others' first
		// reads: read one after the other, they would never all arrive.
		select {
		case <-f.all:
		case <-time.After(5 * time.Second):
			f.mu.Lock()
			f.apart = true
			f.mu.Unlock()
		}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	v, ok := f.values[in.Name]
	switch {
	case n <= f.throttle:
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"ThrottlingException","message":"Rate exceeded"}`))
	case !ok:
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"ParameterNotFound","message":""}`))
	default:
		json.NewEncoder(w).Encode(map[string]any{"Parameter": map[string]any{"Name": in.Name, "Value": v}})
	}
}

// resolveAtColdStart resolves env's references as a cold start does
// (boot.ResolveSecrets), with the light client against the fake at url and
// a fake clock that moves on whenever a retry waits.
func resolveAtColdStart(t *testing.T, url string, env map[string]string) (func(string) string, error) {
	t.Helper()
	clk := clocktest.New(clocktest.Start(t))
	creds, err := secrets.EnvCredentials(func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"}[k]
	})
	require.NoError(t, err)
	retry := secrets.DefaultRetry
	retry.Clock = clk
	reader := &secrets.AWS{Region: "us-east-1", EndpointURL: url, Credentials: creds, Retry: retry}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
				if clk.Timers() > 0 {
					clk.Advance(retry.MaxDelay)
				}
			}
		}
	}()
	var names []string
	for k := range env {
		names = append(names, k)
	}
	return secrets.Resolver{SSM: reader}.Env(context.Background(), func(k string) string { return env[k] }, names)
}

// A cold start in a burst of them survives SSM's throttling: every
// parameter is read at the same time, each throttled read is tried again
// after a jittered delay, and the secrets are there at the end.
func TestSecretsSurviveThrottling(t *testing.T) {
	values := map[string]string{"/a2a/token": "tok-1", "/a2a/tokens": "alice:tok-a", "/a2a/llm": "sk-1"}
	fake, url := newFakeSSM(t, 2, values)
	env := map[string]string{"A2A_BEARER_TOKEN": "ssm:/a2a/token", "A2A_BEARER_TOKENS": "ssm:/a2a/tokens", "A2A_LLM_API_KEY": "ssm:/a2a/llm"}
	getenv, err := resolveAtColdStart(t, url, env)
	require.NoError(t, err)
	assert.Equal(t, "tok-1", getenv("A2A_BEARER_TOKEN"))
	assert.Equal(t, "alice:tok-a", getenv("A2A_BEARER_TOKENS"))
	assert.Equal(t, "sk-1", getenv("A2A_LLM_API_KEY"))
	for name := range values {
		assert.Equal(t, 3, fake.calls[name], "%s: throttled twice, read the third time", name)
	}
	assert.False(t, fake.apart, "the parameters are read at the same time, not one after the other")
}

// Throttling that lasts beyond the retries, and a parameter that does not
// exist, stop the cold start with an error that names the variable and the
// parameter; a missing parameter is not tried again.
func TestSecretsThatCannotBeRead(t *testing.T) {
	fake, url := newFakeSSM(t, 100, map[string]string{"/a2a/busy": "v"})
	_, err := resolveAtColdStart(t, url, map[string]string{"A2A_BEARER_TOKEN": "ssm:/a2a/busy"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "A2A_BEARER_TOKEN: ssm:/a2a/busy")
	assert.Contains(t, err.Error(), "ThrottlingException")
	assert.Contains(t, err.Error(), "after 6 attempts")
	assert.Equal(t, secrets.DefaultRetry.Attempts, fake.calls["/a2a/busy"])

	fake, url = newFakeSSM(t, 0, map[string]string{"/a2a/present": "v"})
	_, err = resolveAtColdStart(t, url, map[string]string{"A2A_BEARER_TOKEN": "ssm:/a2a/present", "A2A_LLM_API_KEY": "ssm:/a2a/missing"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "A2A_LLM_API_KEY: ssm:/a2a/missing: the SSM parameter /a2a/missing does not exist")
	assert.NotContains(t, err.Error(), "A2A_BEARER_TOKEN", "the other parameter was read")
	assert.Equal(t, 1, fake.calls["/a2a/missing"], "a missing parameter is not tried again")
	assert.False(t, strings.Contains(err.Error(), "attempts"))
}
