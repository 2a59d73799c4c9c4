package mergelogreceiver

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// Twenty files each hold a multiline entry of ~150 KiB waiting for its next start line (no
// force flush comes): under max_partial_bytes of 1 MiB, the files whose read takes the sum past
// it emit their entry at once, counted and logged by file, and the others hold theirs until the
// next start line. Nothing is lost either way.
func TestPartialBytesBounded(t *testing.T) {
	const files, bound = 20, 1 << 20
	dir := t.TempDir()
	entry := func(i int) string {
		return fmt.Sprintf("start %02d\n", i) + strings.Repeat(fmt.Sprintf("  continued %02d %s\n", i, strings.Repeat("c", 1000)), 150)
	}
	for i := range files {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.log", i)), entry(i))
	}
	tel := componenttestTelemetry(t)
	core, logs := observer.New(zap.WarnLevel)
	set := tel.settings()
	set.Logger = zap.New(core)
	cfg := testConfig(dir)
	cfg.Multiline.LineStartPattern = "start"
	cfg.ForceFlushPeriod = time.Hour
	cfg.MaxPartialBytes = bound
	s := &testkit.LogsSink{}
	startWith(t, set, cfg, s, nil)

	// 6 entries of ~150 KiB fit under 1 MiB; each file read after that goes past it.
	const cut = files - bound/(150*1020)
	tel.waitSum(t, "otelcol_receiver_mergelog_partials_cut", cut)
	early := s.WaitForBodies(t, cut)
	s.AssertNoMoreThan(t, cut, settle, "the entries within the bound wait for their next start line")
	assert.Equal(t, int64(cut), tel.sum("otelcol_receiver_mergelog_partials_cut", nil))
	warned := logs.FilterMessageSnippet("max_partial_bytes").All()
	require.Len(t, warned, cut)
	for _, w := range warned {
		assert.Contains(t, w.ContextMap()["path"], dir)
		assert.Greater(t, w.ContextMap()["bytes"], int64(150*1000))
	}

	for i := range files {
		testkit.AppendFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.log", i)), "start next\n")
	}
	all := s.WaitForBodies(t, files) // the held entries end; each "start next" waits in turn
	var want []string
	for i := range files {
		want = append(want, strings.TrimSuffix(entry(i), "\n"))
	}
	assertSameLines(t, want, all, "every entry whole: cut only in time, at the end of its lines")
	assert.Subset(t, want, early)
}
