//go:build !linux

package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"

import (
	"errors"
	"runtime"
)

// pageOutExecutable is Linux's alone (madvise MADV_PAGEOUT).
func pageOutExecutable() (pageOutResult, error) {
	return pageOutResult{}, errors.New("giving back an executable's pages is not supported on " + runtime.GOOS)
}
