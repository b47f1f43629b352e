package agent

import (
	"fmt"
	"slices"
	"strings"
)

// Factory builds an agent from its settings (see Settings): an error names
// the setting that is missing or wrong.
type Factory func(s Settings) (Agent, error)

// Registry holds the agents a binary can serve, by name. A binary builds one,
// registers the built-in agents and its own, and picks one with A2A_AGENT.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds an agent under name, replacing any agent of that name.
func (r *Registry) Register(name string, f Factory) { r.factories[name] = f }

// Names lists the registered agents, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// New builds the agent registered under name with the settings read
// through getenv (SettingsFrom: the environment, then A2A_AGENT_SETTINGS).
func (r *Registry) New(name string, getenv func(string) string) (Agent, error) {
	f, ok := r.factories[name]
	if !ok {
		return nil, fmt.Errorf("A2A_AGENT=%q is not a registered agent; choose one of: %s", name, strings.Join(r.Names(), ", "))
	}
	s, err := SettingsFrom(getenv)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", name, err)
	}
	a, err := f(s)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", name, err)
	}
	return a, nil
}
