package bench

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// The fixtures in testdata: access.log (genlogs -kind clf -lines 1000 -seed 7 -offset +0200)
// and app.log (genlogs -kind java -lines 1500 -seed 5), CRLF copies of their first lines, the
// last 50 access lines without the final newline, and access lines mixed with empty,
// blank and space-padded lines.

// TestSameAsFileLog runs file_log and mergelog with the same keys over the same fixtures and
// expects the same records: the same bodies, in the same order within each file, with the
// same log.file.name. Multiline patterns start with ^, where file_log's unanchored search and
// mergelog's anchored prefix match agree.
func TestSameAsFileLog(t *testing.T) {
	const javaStart = `^\d{4}-\d{2}-\d{2}`
	for _, tc := range []struct {
		name      string
		glob      string
		lineStart string
	}{
		{"single-line", "access.log", ""},
		{"multiline", "app.log", javaStart},
		{"CRLF", "crlf-access.log", ""},
		{"CRLF multiline", "crlf-app.log", javaStart},
		{"no final newline", "no-final-newline.log", ""},
		{"empty lines", "empty-lines.log", ""},
		{"all files, single-line", "*.log", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			glob, err := filepath.Abs(filepath.Join("testdata", tc.glob))
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]any{
				"include":  []any{glob},
				"start_at": "beginning",
				// Short periods so that the entry at the end of a file (not followed by a
				// newline or by the next start line) is flushed soon.
				"poll_interval":      "50ms",
				"force_flush_period": "200ms",
			}
			if tc.lineStart != "" {
				keys["multiline"] = map[string]any{"line_start_pattern": tc.lineStart}
			}
			var want, got testkit.LogsSink
			start(t, rig.FileLog, keys, &want, rig.Host{})
			start(t, rig.Mergelog, inOrder(keys), &got, rig.Host{})
			waitSame(&want, &got, time.Second, 30*time.Second)
			wantByFile, gotByFile := byFile(records(&want)), byFile(records(&got))
			t.Logf("file_log: %d records from %d files", want.RecordCount(), len(wantByFile))
			if len(gotByFile) != len(wantByFile) {
				t.Errorf("records from %d files, file_log has %d", len(gotByFile), len(wantByFile))
			}
			for file, w := range wantByFile {
				if d := firstDiff(w, gotByFile[file]); d != "" {
					t.Errorf("%s: mergelog differs from file_log at %s", file, d)
				}
			}
		})
	}
}

// byFile groups records by log.file.name, keeping their order.
func byFile(records []record) map[string][]record {
	m := map[string][]record{}
	for _, r := range records {
		m[r.file] = append(m[r.file], r)
	}
	return m
}

// TestSameAsFileLogEdges runs file_log and mergelog with the same keys over small files that
// exercise where entries are cut (issue 12 item 9): lines before the first start line, invalid
// UTF-8, an end pattern that never matches, a start-pattern entry longer than max_log_size.
func TestSameAsFileLogEdges(t *testing.T) {
	long := func(n int) string { // n lines of 20 bytes, no start line among them
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %02d xxxxxxxxxxx\n", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name    string
		content string
		keys    map[string]any
	}{
		{
			name:    "preamble",
			content: "preamble one\npreamble two\n2024-01-01 first\n  at x\n2024-01-02 second\n",
			keys:    map[string]any{"multiline": map[string]any{"line_start_pattern": `^\d{4}-`}},
		},
		{
			name:    "invalid UTF-8",
			content: "a\xff\xfe\xfdb\nc\xc3d\ne\xe2\x82f\nok\n",
		},
		{
			name:    "end pattern never matches, flushed",
			content: "one\ntwo\nthree\n",
			keys:    map[string]any{"multiline": map[string]any{"line_end_pattern": `^END`}},
		},
		{
			name:    "start entry over max_log_size",
			content: "S first\n" + long(9) + "S second\n" + long(2) + "S third\n",
			keys: map[string]any{
				"multiline":    map[string]any{"line_start_pattern": `^S `},
				"max_log_size": 64,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "edge.log")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			keys := map[string]any{
				"include":            []any{path},
				"start_at":           "beginning",
				"poll_interval":      "50ms",
				"force_flush_period": "200ms",
			}
			maps.Copy(keys, tc.keys)
			var want, got testkit.LogsSink
			start(t, rig.FileLog, keys, &want, rig.Host{})
			start(t, rig.Mergelog, inOrder(keys), &got, rig.Host{})
			waitSame(&want, &got, time.Second, 15*time.Second)
			w, g := bodies(records(&want)), bodies(records(&got))
			if len(w) == 0 {
				t.Fatal("no records from file_log")
			}
			if d := firstDiff(w, g); d != "" {
				t.Errorf("mergelog differs from file_log at %s\n file_log: %q\n mergelog: %q", d, w, g)
			}
		})
	}
}

// bodies returns the bodies of records, in order.
func bodies(records []record) []string {
	out := make([]string, len(records))
	for i, r := range records {
		out[i] = r.body
	}
	return out
}
