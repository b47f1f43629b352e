package service

import (
	"time"
)

// Defaults of the lease (see Lease).
const (
	// DefaultLeaseDuration is how long a step holds its task without
	// renewing (A2A_TASK_LEASE_SECONDS). A task whose runner died is taken
	// over at most one lease, plus one sweep interval, after the runner's
	// last renewal.
	DefaultLeaseDuration = 60 * time.Second
	// DefaultMaxTakeovers is how many times a task is taken over before it
	// is failed instead (A2A_TASK_MAX_TAKEOVERS).
	DefaultMaxTakeovers = 2
	// LeaseSweepLimit bounds the lapsed leases one sweep handles.
	LeaseSweepLimit = 25
)
