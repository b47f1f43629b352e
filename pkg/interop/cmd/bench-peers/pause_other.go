//go:build !linux

package main

import "time"

// pause sleeps d, or the runtime timers' resolution if that is longer
// (bench-peers measures on Linux; see pause_linux.go).
func pause(d time.Duration) { time.Sleep(d) }
