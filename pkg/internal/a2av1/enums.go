package a2av1

import (
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Role names of A2A 1.0.
const (
	RoleUser  = "ROLE_USER"
	RoleAgent = "ROLE_AGENT"
)

const statePrefix = "TASK_STATE_"

// State is the 1.0 name of a task state: TASK_STATE_INPUT_REQUIRED for
// input-required; unknown becomes TASK_STATE_UNSPECIFIED.
func State(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateSubmitted:
		return "TASK_STATE_SUBMITTED"
	case a2a.TaskStateWorking:
		return "TASK_STATE_WORKING"
	case a2a.TaskStateInputRequired:
		return "TASK_STATE_INPUT_REQUIRED"
	case a2a.TaskStateAuthRequired:
		return "TASK_STATE_AUTH_REQUIRED"
	case a2a.TaskStateCompleted:
		return "TASK_STATE_COMPLETED"
	case a2a.TaskStateCanceled:
		return "TASK_STATE_CANCELED"
	case a2a.TaskStateFailed:
		return "TASK_STATE_FAILED"
	case a2a.TaskStateRejected:
		return "TASK_STATE_REJECTED"
	}
	return "TASK_STATE_UNSPECIFIED"
}

// ParseState reads a 1.0 state name (a 0.3 name is accepted too). It
// returns "" and true for no state (no filter): the empty string,
// TASK_STATE_UNSPECIFIED, and UNRECOGNIZED, the unknown-value sentinel the
// official JS SDK 1.x client sends on ListTasks when no filter is set. It
// returns false for a name that is no state.
func ParseState(s string) (a2a.TaskState, bool) {
	if s == "" || s == "TASK_STATE_UNSPECIFIED" || s == "UNRECOGNIZED" {
		return "", true
	}
	st := StateName(s)
	if strings.HasPrefix(s, statePrefix) {
		return st, st.Valid() && st != a2a.TaskStateUnknown
	}
	return st, st.Valid()
}

// StateName is the state a 1.0 state name names, as the model (0.3) names
// it, unchecked: TASK_STATE_INPUT_REQUIRED is input-required; a name
// without the TASK_STATE_ prefix is taken as it is.
func StateName(s string) a2a.TaskState {
	if rest, ok := strings.CutPrefix(s, statePrefix); ok {
		return a2a.TaskState(strings.ReplaceAll(strings.ToLower(rest), "_", "-"))
	}
	return a2a.TaskState(s)
}

// Role is the 1.0 name of a role.
func Role(r a2a.Role) string {
	switch r {
	case a2a.RoleUser:
		return RoleUser
	case a2a.RoleAgent:
		return RoleAgent
	}
	return "ROLE_UNSPECIFIED"
}

// ParseRole reads a 1.0 role name (the 0.3 names are accepted too).
func ParseRole(s string) (a2a.Role, bool) {
	switch s {
	case RoleUser, string(a2a.RoleUser):
		return a2a.RoleUser, true
	case RoleAgent, string(a2a.RoleAgent):
		return a2a.RoleAgent, true
	}
	return "", false
}
