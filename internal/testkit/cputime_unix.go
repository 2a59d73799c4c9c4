//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPUTime is the user + system CPU time this process has used, all threads, GC
// included (children apart). On a shared machine, where wall time depends on what else runs,
// it is the steadier measure of what work costs a core. ok is false where it cannot be read.
func ProcessCPUTime() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
