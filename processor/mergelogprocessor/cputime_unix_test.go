//go:build unix

package mergelogprocessor

import (
	"syscall"
	"time"
)

// processCPUTime is the user+system CPU time the process has used, GC included. On a shared
// machine, where wall time depends on what else runs, it is the steadier measure of what the
// processor costs a core.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
