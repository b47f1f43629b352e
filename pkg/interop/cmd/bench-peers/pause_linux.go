package main

import (
	"syscall"
	"time"
)

// pause sleeps d on the calling thread. Not time.Sleep: the runtime's
// timers wake at its network poller's resolution, a millisecond on Linux
// (here a 100 µs time.Sleep lasts 1.1 ms), which would round each start-up
// up to the next of tries a millisecond apart.
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	syscall.Nanosleep(&ts, nil)
}
