package mergelogreceiver

import (
	"maps"
	"slices"
	"testing"
)

// FuzzFastOperators runs every chain of fastChains on fuzzed entries, by the fast path and by
// stanza's operators: the same records, drops and failures, or a difference to fix before the
// fast path may cover what differs.
func FuzzFastOperators(f *testing.F) {
	for _, body := range fastTrickyBodies {
		f.Add(body)
	}
	var chains []*fastDiff
	for _, name := range slices.Sorted(maps.Keys(fastChains)) {
		chains = append(chains, newFastDiff(f, fastChains[name]))
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, d := range chains {
			d.check(t, fileInput(body))
		}
	})
}
