// Package envtest stands in for the process environment in tests of code
// that reads its settings through a getenv function.
package envtest

import "github.com/a2a-lambda/a2a-lambda/pkg/agent"

// Getenv returns a getenv function that knows the variables kv names, as
// name, value pairs; every other name reads as unset (""). A trailing name
// without a value is ignored.
func Getenv(kv ...string) func(string) string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(name string) string { return m[name] }
}

// Settings returns agent settings that know the variables kv names, as
// Getenv does: what an agent.Factory receives from such an environment.
func Settings(kv ...string) agent.Settings {
	return agent.NewSettings(Getenv(kv...), nil)
}
