//go:build !unix

package testkit

import "time"

// ProcessCPUTime cannot be read on this system: ok is false.
func ProcessCPUTime() (cpu time.Duration, ok bool) { return 0, false }
