//go:build !unix

package mergelogprocessor

import "time"

func processCPUTime() (time.Duration, bool) { return 0, false }
