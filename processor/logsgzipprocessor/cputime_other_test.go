//go:build !unix

package logsgzipprocessor

import "time"

func processCPUTime() (time.Duration, bool) { return 0, false }
