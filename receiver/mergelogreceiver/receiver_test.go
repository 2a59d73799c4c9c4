package mergelogreceiver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

func TestRecordsAndAttributes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	testkit.WriteFile(t, path, "first line\n  second line  \n\nthird line\n")
	link := filepath.Join(dir, "link.log")
	require.NoError(t, os.Symlink(path, link))
	cfg := testConfig(dir)
	cfg.Include = []string{link}
	cfg.IncludeFilePath = true
	cfg.IncludeFileNameResolved = true
	cfg.IncludeFilePathResolved = true
	cfg.IncludeFileRecordNumber = true
	cfg.Attributes = map[string]string{"team": "payments"}
	cfg.Resource = map[string]string{"service.name": "checkout"}
	s := &testkit.LogsSink{}
	before := time.Now()
	startReceiver(t, cfg, s, nil)

	// Whitespace is trimmed and the empty line dropped, but numbered, as file_log does.
	assert.Equal(t, []string{"first line", "second line", "third line"}, s.WaitForBodies(t, 3))
	resolved, err := filepath.EvalSymlinks(path)
	require.NoError(t, err)
	for i, lr := range s.Records() {
		assert.Equal(t, map[string]any{
			"log.file.name":          "link.log",
			"log.file.path":          link,
			"log.file.name_resolved": "app.log",
			"log.file.path_resolved": resolved,
			"log.file.record_number": []int64{1, 2, 4}[i],
			"team":                   "payments",
		}, lr.Attributes().AsRaw())
		assert.Equal(t, pcommon.Timestamp(0), lr.Timestamp(), "no timestamp section")
		assert.GreaterOrEqual(t, lr.ObservedTimestamp().AsTime(), before)
	}
	rl := s.Batches()[0].ResourceLogs().At(0)
	assert.Equal(t, map[string]any{"service.name": "checkout"}, rl.Resource().Attributes().AsRaw())
	assert.Equal(t, metadata.ScopeName, rl.ScopeLogs().At(0).Scope().Name())
}

func TestDefaultAttributesAndWhitespace(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), "  padded \t\n")
	cfg := testConfig(dir)
	cfg.PreserveLeadingWhitespaces = true
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, []string{"  padded"}, s.WaitForBodies(t, 1))
	assert.Equal(t, map[string]any{"log.file.name": "a.log"}, s.Records()[0].Attributes().AsRaw())
}

func TestEncodings(t *testing.T) {
	for _, tc := range []struct {
		encoding string
		want     any
	}{
		{"utf-8", "bad \uFFFD byte"},
		{"utf-8-raw", "bad \xff byte"},
		{"nop", []byte("bad \xff byte")},
	} {
		t.Run(tc.encoding, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, "a.log"), "bad \xff byte\n")
			cfg := testConfig(dir)
			cfg.Encoding = Encoding(tc.encoding)
			s := &testkit.LogsSink{}
			startReceiver(t, cfg, s, nil)
			s.WaitForBodies(t, 1)
			body := s.Records()[0].Body()
			if b, ok := tc.want.([]byte); ok {
				assert.Equal(t, pcommon.ValueTypeBytes, body.Type())
				assert.Equal(t, b, body.Bytes().AsRaw())
				return
			}
			assert.Equal(t, pcommon.ValueTypeStr, body.Type())
			assert.Equal(t, tc.want, body.Str())
		})
	}
}

func TestForceFlushEmitsPartialLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, "complete\npartial")
	cfg := testConfig(dir)
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, []string{"complete", "partial"}, s.WaitForBodies(t, 2))
	// The rest of a flushed line is read as a new line, as in file_log.
	testkit.AppendFile(t, path, " rest\nnext\n")
	assert.Equal(t, []string{"complete", "partial", "rest", "next"}, s.WaitForBodies(t, 4))
}

func TestMaxLogSize(t *testing.T) {
	long := strings.Repeat("x", 25)
	for _, tc := range []struct {
		behavior, pattern string
		want              []string
	}{
		{"split", "", []string{"short", "xxxxxxxxxx", "xxxxxxxxxx", "xxxxx", "after"}},
		{"truncate", "", []string{"short", "xxxxxxxxxx", "after"}},
		// The pieces after the first would match the pattern: they are dropped all the same.
		{"truncate", "[a-z]", []string{"short", "xxxxxxxxxx", "after"}},
		// The cut line joins the entry, which is cut at 10 bytes.
		{"truncate", "s", []string{"short\nxxxx"}},
	} {
		t.Run(tc.behavior+"/"+tc.pattern, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, "a.log"), "short\n"+long+"\nafter\n")
			cfg := testConfig(dir)
			cfg.MaxLogSize = 10
			cfg.MaxLogSizeBehavior = LogSizeBehavior(tc.behavior)
			cfg.Multiline.LineStartPattern = tc.pattern
			s := &testkit.LogsSink{}
			startReceiver(t, cfg, s, nil)
			assert.Equal(t, tc.want, s.WaitForBodies(t, len(tc.want)))
			s.AssertNoMoreThan(t, len(tc.want), settle, "nothing more")
			assert.Equal(t, tc.want, s.Bodies(), "nothing more")
		})
	}
}

func TestMultilineModes(t *testing.T) {
	for _, tc := range []struct {
		name             string
		start, cont, end string
		omit             bool
		maxLines         int
		input            string
		want             []string
	}{
		{
			name:  "start",
			start: `\d{4}-`,
			input: "orphan\n2024-01-01 one\n\tat a\n\tat b\n2024-01-02 two\n2024-01-03 three\n",
			want:  []string{"orphan", "2024-01-01 one\n\tat a\n\tat b", "2024-01-02 two", "2024-01-03 three"},
		},
		{
			name:  "start with omit_pattern",
			start: `START `,
			omit:  true,
			input: "START one\nmore\nSTART two\n",
			want:  []string{"one\nmore", "two"},
		},
		{
			name:  "start+continue",
			start: `ERROR`,
			cont:  `\s`,
			input: "ERROR boom\n  at x\nplain\nERROR again\n  at y\n",
			want:  []string{"ERROR boom\n  at x", "plain", "ERROR again\n  at y"},
		},
		{
			name:  "start+end",
			start: `BEGIN`,
			end:   `END`,
			input: "BEGIN\na\nEND\nstray\nBEGIN\nb\nEND\n",
			want:  []string{"BEGIN\na\nEND", "stray", "BEGIN\nb\nEND"},
		},
		{
			name:  "continue+end",
			cont:  `\+`,
			end:   `;`,
			input: "+a\n+b\n;\nalone\n",
			want:  []string{"+a\n+b\n;", "alone"},
		},
		{
			name:  "end",
			end:   `.*;$`,
			input: "a\nb;\nc;\n",
			want:  []string{"a\nb;", "c;"},
		},
		{
			name:  "end with omit_pattern",
			end:   `--$`,
			omit:  true,
			input: "a\nb\n--\nc\n--\n",
			want:  []string{"a\nb", "c"},
		},
		{
			name:     "max_lines",
			start:    `S`,
			maxLines: 2,
			input:    "S1\nx\ny\nz\nS2\n",
			want:     []string{"S1\nx", "y\nz", "S2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, filepath.Join(dir, "a.log"), tc.input)
			cfg := testConfig(dir)
			cfg.Multiline = MultilineConfig{
				LineStartPattern: tc.start, LineContinuePattern: tc.cont, LineEndPattern: tc.end,
				OmitPattern: tc.omit, MaxLines: tc.maxLines,
			}
			s := &testkit.LogsSink{}
			startReceiver(t, cfg, s, nil)
			// The last entry of the start modes waits for force_flush_period.
			assert.Equal(t, tc.want, s.WaitForBodies(t, len(tc.want)))
		})
	}
}

func TestTimestamps(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"),
		"2024-03-01T10:00:00.5Z first\nno time here\n2024-03-01 12:00:00+02:00 third\n")
	cfg := testConfig(dir)
	cfg.Timestamp = &TimestampConfig{Format: "rfc3339"}
	tel := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tel.settings(), cfg, s, nil)
	s.WaitForBodies(t, 3)
	recs := s.Records()
	assert.Equal(t, time.Date(2024, 3, 1, 10, 0, 0, 5e8, time.UTC), recs[0].Timestamp().AsTime())
	assert.Equal(t, pcommon.Timestamp(0), recs[1].Timestamp())
	assert.Equal(t, time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC), recs[2].Timestamp().AsTime())
	tel.waitSum(t, "otelcol_receiver_mergelog_entries_untimed", 1)
}

func TestManyFilesAndBatchBounds(t *testing.T) {
	dir := t.TempDir()
	const files, lines = 5, 200
	for f := range files {
		var b strings.Builder
		for i := range lines {
			fmt.Fprintf(&b, "file %d line %d\n", f, i)
		}
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%d.log", f)), b.String())
	}
	cfg := testConfig(dir)
	cfg.Batch.MaxRecords = 64
	cfg.Batch.MaxBytes = 1000
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	got := s.WaitForBodies(t, files*lines)
	assertSameLines(t, expectedLines(files, lines), got)
	for _, ld := range s.Batches() {
		assert.LessOrEqual(t, ld.LogRecordCount(), 64)
	}
}

func expectedLines(files, lines int) []string {
	var out []string
	for f := range files {
		for i := range lines {
			out = append(out, fmt.Sprintf("file %d line %d", f, i))
		}
	}
	return out
}

// Read rounds cut short for a poll go on where they stopped: with rounds far longer than
// poll_interval, every file is read a chunk at a time in turn, none waits for the ones before it
// to be read to their end.
func TestLongRoundsReadEveryFileInTurn(t *testing.T) {
	dir := t.TempDir()
	const files, lines = 8, 20000 // about 600 kB a file: a few chunks each
	for i := range files {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%d.log", i)), testkit.Text(testkit.Lines(fmt.Sprintf("f%d %s", i, strings.Repeat("x", 20)), 0, lines)))
	}
	cfg := testConfig(dir)
	cfg.PollInterval = time.Microsecond // every file's chunk outlasts it
	var mu sync.Mutex
	started := map[string]bool{} // files with records delivered before f0 was done
	var f0done bool
	s := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		mu.Lock()
		defer mu.Unlock()
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					body := lr.Body().Str()
					if !f0done {
						started[body[:2]] = true
					}
					if strings.HasPrefix(body, "f0 ") && strings.HasSuffix(body, fmt.Sprintf(" %d", lines-1)) {
						f0done = true
					}
				}
			}
		}
		return nil
	}}
	startReceiver(t, cfg, s, nil)
	s.WaitForBodies(t, files*lines)
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, started, files, "files read before the first was read to its end: %v", started)
}
