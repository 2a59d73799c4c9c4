package fastops

import (
	"maps"
	"slices"
	"testing"
)

// FuzzSameAsStanza runs every chain of testdata/chains.yaml on fuzzed entries, by the fast path
// and by stanza's operators: the same records, drops and failures, or a difference to fix
// before the fast path may cover what differs.
func FuzzSameAsStanza(f *testing.F) {
	for _, body := range trickyBodies {
		f.Add(body)
	}
	var diffs []*diff
	chains := testChains(f)
	for _, name := range slices.Sorted(maps.Keys(chains)) {
		diffs = append(diffs, newDiff(f, chains[name]))
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, d := range diffs {
			d.check(t, fileInput(body))
		}
	})
}
