//go:build !race

package logsgzipprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/plog"
)

// TestAllocsPerRecord guards the steady-state budget: at most one
// allocation per compressed record plus a few per batch. (Not under -race,
// which adds allocations of its own.)
func TestAllocsPerRecord(t *testing.T) {
	for _, tc := range []struct {
		name    string
		records int
		size    int
		bytes   bool
	}{
		{"str", 100, 500, false},
		{"bytes", 100, 500, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProcessor(t, func(c *Config) { c.MaxWorkers = 1 })
			src := accessLogBatch(tc.records, tc.size)
			if tc.bytes {
				for _, lr := range flat(src) {
					s := lr.Body().Str()
					lr.Body().SetEmptyBytes().FromRaw([]byte(s))
				}
			}
			const runs = 20
			copies := make([]plog.Logs, runs+1) // AllocsPerRun adds a warm-up run
			for i := range copies {
				copies[i] = plog.NewLogs()
				src.CopyTo(copies[i])
			}
			i := 0
			allocs := testing.AllocsPerRun(runs, func() {
				_, _ = p.processLogs(context.Background(), copies[i])
				i++
			})
			budget := float64(tc.records + 4)
			if tc.bytes {
				budget = 4 // Bytes bodies need no new value, only the shared output
			}
			assert.LessOrEqual(t, allocs, budget)
			t.Logf("%d records: %.0f allocs per batch", tc.records, allocs)
		})
	}
}
