package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestSameAsFileLogContainer runs file_log with its container operator and mergelog with
// format: container over the same pod log tree and expects the same records: bodies without
// the runtime's prefix, split lines joined, the runtime's time, log.iostream and the pod's
// identity as resource attributes. Records are compared as sets: the two may interleave the
// streams of a file differently. Pieces of split lines never end in a space here: file_log
// trims each physical line before joining the pieces, and would lose it (ours keeps it).
//
// CRI lines only: on Docker's json-file lines file_log's container operator keeps the log's
// final newline in the body and leaves the pieces of a split line apart, where ours drops the
// newline and joins them (TestContainerDockerJSON in the receiver).
func TestSameAsFileLogContainer(t *testing.T) {
	root := t.TempDir()
	// One file: with two, file_log reads them concurrently and its container operator writes a
	// field of its own on every entry from both goroutines, a data race -race reports (in
	// contrib v0.165.1, parser/container/parser.go).
	for p, dir := range []string{"shop_cart-7d9f_0b7c-11ef/server"} {
		at := time.Date(2026, 11, 29, 10, 0, p, 0, time.UTC)
		var cri strings.Builder
		for i := range 300 {
			at = at.Add(1234567 * time.Nanosecond)
			stream := []string{"stdout", "stderr"}[i%3/2]
			msg := fmt.Sprintf("pod %d request %d handled \"ok\" in %dms\twith a tab", p, i, i%97)
			ts := at.Format(time.RFC3339Nano)
			if i%7 == 3 {
				fmt.Fprintf(&cri, "%s %s P %s\n", ts, stream, msg[:10])
				msg = msg[10:]
			}
			fmt.Fprintf(&cri, "%s %s F %s\n", ts, stream, msg)
		}
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "1.log"), []byte(cri.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keys := func() map[string]any {
		return map[string]any{
			"include":            []any{filepath.Join(root, "*", "*", "*.log")},
			"start_at":           "beginning",
			"poll_interval":      "50ms",
			"force_flush_period": "200ms",
			"include_file_path":  true,
		}
	}
	theirs, ours := keys(), keys()
	theirs["operators"] = []any{map[string]any{"type": "container"}}
	ours["format"] = "container"
	var want, got testkit.LogsSink
	start(t, rig.FileLog, theirs, &want, rig.Host{})
	start(t, rig.Mergelog, ours, &got, rig.Host{})
	waitSame(&want, &got, time.Second, 30*time.Second)
	w, g := records(&want), records(&got)
	sortRecords(w)
	sortRecords(g)
	if len(w) != 300 {
		t.Errorf("file_log gave %d records, want 300", len(w))
	}
	if d := firstDiff(w, g); d != "" {
		t.Errorf("mergelog differs from file_log at %s", d)
	}
}

func sortRecords(rs []record) {
	slices.SortFunc(rs, func(a, b record) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
}
