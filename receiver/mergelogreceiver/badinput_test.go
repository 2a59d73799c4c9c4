package mergelogreceiver

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/internal/textcoding"
)

// The bad-input cases: each puts bad input beside good.log, a healthy neighbour, checks what
// the receiver does with the bad input, and then that the neighbour's lines written before and
// after all arrived, once and in order: nothing else was lost and the receiver still runs.
// README.md's "Bad input: what happens" lists the cases.

const goodFile = "good.log"

// badRun is one receiver run of a bad-input case, its logs and telemetry observed.
type badRun struct {
	dir    string
	sink   *testkit.LogsSink
	tel    telemetry
	logger *zap.Logger
	logs   *observer.ObservedLogs
}

func newBadRun(t *testing.T) *badRun {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, goodFile), testkit.Text(goodLines(0, 10)))
	core, logs := observer.New(zap.InfoLevel)
	return &badRun{dir: dir, sink: &testkit.LogsSink{}, tel: componenttestTelemetry(t), logger: zap.New(core), logs: logs}
}

func (b *badRun) path(name string) string { return filepath.Join(b.dir, name) }

func (b *badRun) start(t *testing.T, cfg *Config) {
	t.Helper()
	set := b.tel.settings()
	set.Logger = b.logger
	startWith(t, set, cfg, b.sink, nil)
}

// goodLines are the neighbour's lines, with RFC 3339 timestamps for the case that merges.
func goodLines(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("2024-03-01T10:00:%02dZ good %d", i, i))
	}
	return out
}

// recordsOf returns the accepted records read from the file with base name name.
func (b *badRun) recordsOf(name string) []plog.LogRecord {
	var out []plog.LogRecord
	for _, lr := range b.sink.Records() {
		if v, ok := lr.Attributes().Get(attrFileName); ok && v.Str() == name {
			out = append(out, lr)
		}
	}
	return out
}

func (b *badRun) bodiesOf(name string) []string {
	var out []string
	for _, lr := range b.recordsOf(name) {
		if body := lr.Body(); body.Type() == pcommon.ValueTypeBytes {
			out = append(out, string(body.Bytes().AsRaw())) // nop encoding
		} else {
			out = append(out, body.Str())
		}
	}
	return out
}

// waitFor waits until n records of file name arrived and returns their bodies.
func (b *badRun) waitFor(t *testing.T, name string, n int) []string {
	t.Helper()
	require.Eventually(t, func() bool { return len(b.bodiesOf(name)) >= n }, testkit.Timeout, 5*time.Millisecond,
		"want %d records of %s", n, name)
	return b.bodiesOf(name)
}

// neighbourAlive appends to the neighbour after the bad input did its worst and expects all of
// its lines, once, in order.
func (b *badRun) neighbourAlive(t *testing.T) {
	t.Helper()
	testkit.AppendFile(t, b.path(goodFile), testkit.Text(goodLines(10, 20)))
	assert.Equal(t, goodLines(0, 20), b.waitFor(t, goodFile, 20))
	assert.Never(t, func() bool { return len(b.bodiesOf(goodFile)) > 20 }, settle, 5*time.Millisecond,
		"nothing more from the neighbour")
	assert.Equal(t, goodLines(0, 20), b.bodiesOf(goodFile), "nothing more from the neighbour")
}

// reports returns the warnings and errors logged about path.
func (b *badRun) reports(path string) []string {
	var out []string
	for _, e := range b.logs.FilterField(zap.String("path", path)).All() {
		if e.Level >= zap.WarnLevel {
			out = append(out, e.Message)
		}
	}
	return out
}

// reportedOnce waits for a report about each path of want, then watches for settle and checks
// that it was the only one and holds the message want gives: the file is not tried again and
// again, or not reported again if it is.
func (b *badRun) reportedOnce(t *testing.T, want map[string]string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for path := range want {
			if len(b.reports(path)) == 0 {
				return false
			}
		}
		return true
	}, testkit.Timeout, 5*time.Millisecond, "a report about each of %v", want)
	assert.Never(t, func() bool {
		for path := range want {
			if len(b.reports(path)) > 1 {
				return true
			}
		}
		return false
	}, settle, 5*time.Millisecond, "a second report about one of %v", want)
	for path, message := range want {
		got := b.reports(path)
		if assert.Len(t, got, 1, "reports about %s", path) {
			assert.Contains(t, got[0], message, path)
		}
	}
}

// quiet watches for settle and checks that nothing about path was reported.
func (b *badRun) quiet(t *testing.T, path string) {
	t.Helper()
	assert.Never(t, func() bool { return len(b.reports(path)) > 0 }, settle, 5*time.Millisecond, "a report about %s", path)
	assert.Empty(t, b.reports(path))
}

// Binary garbage, NUL bytes and invalid UTF-8 are not special: the file is cut into lines at
// each '\n', every other byte kept; utf-8 replaces each ill-formed subsequence with U+FFFD as
// file_log's decoder does (each invalid byte, or the valid prefix of a sequence cut short:
// textcoding.AppendValid, checked against it in TestAppendValidLikeFileLog), utf-8-raw keeps the
// bytes in the string, nop gives Bytes bodies.
func TestBadInputBinaryGarbage(t *testing.T) {
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	garbage[0] = 0 // a NUL: no compression magic, which would make it a (corrupt) compressed file
	copy(garbage[1000:], "\n\x00\x00\x00\n\xff\xfe\xc3\x28\n")
	var lines [][]byte
	for _, l := range bytes.Split(garbage, []byte("\n")) {
		if len(l) > 0 { // empty entries are dropped
			lines = append(lines, l)
		}
	}
	for _, encoding := range []Encoding{EncodingUTF8, EncodingRaw, EncodingNop} {
		t.Run(string(encoding), func(t *testing.T) {
			b := newBadRun(t)
			testkit.WriteFile(t, b.path("bad.log"), string(garbage))
			cfg := testConfig(b.dir)
			cfg.Encoding = encoding
			cfg.PreserveLeadingWhitespaces = true // keep every byte, to compare
			cfg.PreserveTrailingWhitespaces = true
			b.start(t, cfg)
			b.waitFor(t, "bad.log", len(lines))
			got := b.recordsOf("bad.log")
			require.Len(t, got, len(lines))
			for i, lr := range got {
				body := lr.Body()
				switch encoding {
				case EncodingUTF8:
					require.Equal(t, string(textcoding.AppendValid(nil, lines[i])), body.Str(), "line %d", i)
				case EncodingRaw:
					require.Equal(t, string(lines[i]), body.Str(), "line %d", i)
				case EncodingNop:
					require.Equal(t, pcommon.ValueTypeBytes, body.Type())
					require.Equal(t, lines[i], body.Bytes().AsRaw(), "line %d", i)
				}
			}
			b.quiet(t, b.path("bad.log"))
			b.neighbourAlive(t)
		})
	}
}

// A 50 MiB line without a newline never takes more than max_log_size (1 MiB) of memory: split
// gives it as 1 MiB records and its rest; truncate keeps the first 1 MiB and drops the rest,
// the rest flushed for being idle included. Either way the line after it comes through.
func TestBadInputHugeLineWithoutNewline(t *testing.T) {
	const mib, pieces = 1 << 20, 50
	piece := func(i int) string { return fmt.Sprintf("%08d", i) + strings.Repeat("x", mib-8) }
	const rest = "rest!"
	for _, behavior := range []LogSizeBehavior{BehaviorSplit, BehaviorTruncate} {
		t.Run(string(behavior), func(t *testing.T) {
			b := newBadRun(t)
			bad := b.path("bad.log")
			f, err := os.Create(bad)
			require.NoError(t, err)
			for i := range pieces {
				_, err := f.WriteString(piece(i))
				require.NoError(t, err)
			}
			_, err = f.WriteString(rest)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			cfg := testConfig(b.dir)
			cfg.MaxLogSizeBehavior = behavior
			b.start(t, cfg)

			want := pieces + 1
			if behavior == BehaviorTruncate {
				want = 1
			}
			b.waitFor(t, "bad.log", want)
			// bytes_read counts the rest once the idle flush (force_flush_period) consumed it.
			b.tel.waitSum(t, "otelcol_receiver_mergelog_bytes_read", pieces*mib+int64(len(rest)+len(testkit.Text(goodLines(0, 10)))))
			got := b.bodiesOf("bad.log")
			require.Len(t, got, want, "records of the long line")
			for i, body := range got[:min(len(got), pieces)] {
				require.True(t, body == piece(i), "record %d: %d bytes, starts %.8q", i, len(body), body)
			}
			if behavior == BehaviorSplit {
				assert.Equal(t, rest, got[pieces])
			}
			testkit.AppendFile(t, bad, "\nafter\n")
			assert.Equal(t, "after", b.waitFor(t, "bad.log", want+1)[want])
			b.quiet(t, bad)
			b.neighbourAlive(t)
		})
	}
}

// A file truncated while it is being read (here: while the first batch is held downstream, with
// most of the file unread) is read again from its start: the old lines already buffered come
// first, then every new line once.
func TestBadInputTruncatedWhileRead(t *testing.T) {
	b := newBadRun(t)
	bad := b.path("bad.log")
	old := testkit.Lines("old line with some padding to make the file large", 0, 20000) // 1 MiB
	testkit.WriteFile(t, bad, testkit.Text(old))
	held, release := make(chan struct{}), make(chan struct{})
	b.sink.Answer = func(_ context.Context, call int, _ plog.Logs) error {
		if call == 1 {
			close(held)
			<-release
		}
		return nil
	}
	cfg := testConfig(b.dir)
	cfg.Batch.MaxRecords = 10
	b.start(t, cfg)
	<-held
	fresh := testkit.Lines("new", 0, 100)
	testkit.WriteFile(t, bad, testkit.Text(fresh)) // truncates, then writes
	close(release)

	var got []string
	require.Eventually(t, func() bool {
		got = b.bodiesOf("bad.log")
		return len(got) >= len(fresh) && got[len(got)-1] == fresh[len(fresh)-1]
	}, testkit.Timeout, 5*time.Millisecond, "the new content")
	n := len(got) - len(fresh)
	require.Positive(t, n, "old lines were read before the truncation")
	assert.Less(t, n, len(old), "the file was truncated before it was read to its end")
	assert.Equal(t, old[:n], got[:n], "old lines: a prefix")
	assert.Equal(t, fresh, got[n:], "then the new content, once")
	// What the truncation took before it was read is lost, and said so (once the identity is
	// forgotten: a copy could have continued it until then).
	b.reportedOnce(t, map[string]string{bad: "truncated or rewritten before it was read to its end"})
	b.neighbourAlive(t)
}

// A damaged compressed file is read up to the damage, reported once by name, and not read
// again. Each file is two streams (members, frames): an intact one, lines 0-49, then a damaged
// one, lines 50-99. What the decoder gave before it found the damage is delivered: lines 0-49
// at least, exactly; after a cut, a further prefix of the second stream (its cut last line
// dropped); gzip and bzip2 check their CRC only at the end of a member or block, so a flipped
// byte can deliver garbled lines before the error. A stream cut short is taken to be still
// being written until 3 polls pass without growth. A file whose very first stream cannot be
// decoded is not tracked: reported once, tried again when it changes.
func TestBadInputDamagedCompressedFiles(t *testing.T) {
	type damaged struct {
		kind, damage string
		exact        int    // all lines delivered, exactly, if > 0
		message      string // of the one report
	}
	const gaveUp, cutShort = "cannot read file, giving it up", "cut short and not growing"
	cases := []damaged{
		{"gzip", "cut", 0, cutShort},
		{"gzip", "crc", 100, gaveUp},
		{"gzip", "header", 50, gaveUp},
		{"gzip", "flip", 0, gaveUp},
	}
	kinds := []string{"xz", "zstd"}
	if testkit.CanCompress(testkit.Bzip2) {
		kinds = append(kinds, "bzip2")
	} else {
		t.Log("no bzip2 command to compress with: bzip2 left out")
	}
	for _, kind := range kinds {
		cases = append(cases, damaged{kind, "cut", 0, cutShort}, damaged{kind, "header", 50, gaveUp},
			damaged{kind, "flip", 0, gaveUp})
	}
	b := newBadRun(t)
	for _, c := range cases {
		name := c.kind + "-" + c.damage
		intact := testkit.Compress(t, testkit.Format(c.kind), []byte(testkit.Text(testkit.Lines(name, 0, 50))))
		second := bytes.Clone(testkit.Compress(t, testkit.Format(c.kind), []byte(testkit.Text(testkit.Lines(name, 50, 100)))))
		switch c.damage {
		case "cut":
			second = second[:len(second)/2]
		case "crc":
			second[len(second)-8] ^= 0xff // gzip's trailer: CRC-32, then the size
		case "header":
			second[0] ^= 0xff
		case "flip":
			second[len(second)/2] ^= 0x55
		}
		testkit.WriteFile(t, b.path(name+".log"), string(intact)+string(second))
	}
	undecodable := append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte("garbage!"), 64)...)
	testkit.WriteFile(t, b.path("undecodable.log"), string(undecodable))
	b.start(t, testConfig(b.dir))

	reports := map[string]string{b.path("undecodable.log"): "skipping file for now: corrupt"}
	for _, c := range cases {
		reports[b.path(c.kind+"-"+c.damage+".log")] = c.message
	}
	b.reportedOnce(t, reports)
	for _, c := range cases {
		name := c.kind + "-" + c.damage
		t.Run(name, func(t *testing.T) {
			want := testkit.Lines(name, 0, 100)
			got := b.bodiesOf(name + ".log")
			switch {
			case c.exact > 0:
				assert.Equal(t, want[:c.exact], got)
			case c.damage == "cut":
				require.GreaterOrEqual(t, len(got), 50)
				assert.Equal(t, want[:len(got)], got, "a prefix")
			default:
				require.GreaterOrEqual(t, len(got), 50)
				assert.Equal(t, want[:50], got[:50], "the intact stream")
			}
		})
	}
	assert.Empty(t, b.bodiesOf("undecodable.log"))
	b.neighbourAlive(t)
}

// An empty file is not tracked until it has bytes: nothing is emitted or reported, and what is
// written to it later is read.
func TestBadInputEmptyFile(t *testing.T) {
	b := newBadRun(t)
	bad := b.path("empty.log")
	testkit.WriteFile(t, bad, "")
	b.start(t, testConfig(b.dir))
	b.waitFor(t, goodFile, 10)
	b.quiet(t, bad)
	assert.Empty(t, b.bodiesOf("empty.log"))
	testkit.AppendFile(t, bad, testkit.Text(testkit.Lines("later", 0, 3)))
	assert.Equal(t, testkit.Lines("later", 0, 3), b.waitFor(t, "empty.log", 3))
	b.neighbourAlive(t)
}

// Files whose first kilobytes are the same (longer than fingerprint_size) are told apart by
// what follows: each is read whole, including one that holds only the shared header at first
// (taken for a copy of the other until it grows differently).
func TestBadInputFingerprintCollision(t *testing.T) {
	b := newBadRun(t)
	header := testkit.Lines("shared header line", 0, 100) // 2.5 KB
	testkit.WriteFile(t, b.path("a.log"), testkit.Text(append(header, testkit.Lines("a", 0, 10)...)))
	testkit.WriteFile(t, b.path("b.log"), testkit.Text(append(header, testkit.Lines("b", 0, 10)...)))
	testkit.WriteFile(t, b.path("c.log"), testkit.Text(header))
	cfg := testConfig(b.dir)
	require.Less(t, int(cfg.FingerprintSize), len(testkit.Text(header)))
	b.start(t, cfg)
	assert.Equal(t, append(header, testkit.Lines("a", 0, 10)...), b.waitFor(t, "a.log", 110))
	assert.Equal(t, append(header, testkit.Lines("b", 0, 10)...), b.waitFor(t, "b.log", 110))
	// Paces the writer: c.log stays a header-only look-alike for a few polls before it grows
	// differently (the test holds whether or not a poll saw it so).
	time.Sleep(50 * time.Millisecond)
	testkit.AppendFile(t, b.path("c.log"), testkit.Text(testkit.Lines("c", 0, 10)))
	assert.Equal(t, append(header, testkit.Lines("c", 0, 10)...), b.waitFor(t, "c.log", 110))
	b.neighbourAlive(t)
	for _, name := range []string{"a.log", "b.log", "c.log"} {
		assert.Len(t, b.bodiesOf(name), 110, "%s: nothing twice", name)
	}
}

// A file replaced by a symbolic link is followed through the link, as any linked file, and its
// records keep the link's name. A link to the same file, moved elsewhere, goes on where reading
// was, whether the path was replaced at once or was missing for some polls meanwhile (the file,
// gone, is read to its end and let go; found again, it must be taken up again). A link to another
// file reads that file from its start, and the lines of the replaced one not again.
func TestBadInputReplacedBySymlink(t *testing.T) {
	for _, tc := range []struct {
		name    string
		another bool          // the link points to another file, not to the one it replaces
		gap     time.Duration // how long the path is missing before the link appears
	}{
		{"same file, at once", false, 0},
		{"same file, missing for polls", false, 100 * time.Millisecond},
		{"another file", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBadRun(t)
			bad := b.path("bad.log")
			testkit.WriteFile(t, bad, testkit.Text(testkit.Lines("line", 0, 10)))
			b.start(t, testConfig(b.dir))
			b.waitFor(t, "bad.log", 10)

			target := filepath.Join(t.TempDir(), "target.log")
			if tc.another {
				testkit.WriteFile(t, target, testkit.Text(testkit.Lines("other", 0, 5)))
			} else {
				require.NoError(t, os.Link(bad, target)) // the same file under another path
			}
			if tc.gap > 0 {
				require.NoError(t, os.Remove(bad))
				time.Sleep(tc.gap) // the gap itself is the case: the path is missing for a while
			}
			// The link is made beside it and renamed into place: the rename leaves no gap.
			tmp := b.path("link.tmp")
			require.NoError(t, os.Symlink(target, tmp))
			require.NoError(t, os.Rename(tmp, bad))
			want := append(testkit.Lines("line", 0, 10), testkit.Lines("other", 0, 5)...)
			if !tc.another {
				testkit.AppendFile(t, target, testkit.Text(testkit.Lines("line", 10, 15)))
				want = testkit.Lines("line", 0, 15)
			}
			assert.Equal(t, want, b.waitFor(t, "bad.log", len(want)))
			b.neighbourAlive(t)
			assert.Equal(t, want, b.bodiesOf("bad.log"), "nothing twice")
		})
	}
}

// A file that cannot be opened (permission denied) is reported once, tried again at each poll
// without another report, and read once it can be.
func TestBadInputPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root opens a file whatever its mode; filetrack's TestPermissionDenied covers this with an injected open")
	}
	b := newBadRun(t)
	bad := b.path("secret.log")
	testkit.WriteFile(t, bad, testkit.Text(testkit.Lines("secret", 0, 5)))
	require.NoError(t, os.Chmod(bad, 0))
	b.start(t, testConfig(b.dir))
	b.reportedOnce(t, map[string]string{bad: "permission denied"})
	assert.Empty(t, b.bodiesOf("secret.log"))
	require.NoError(t, os.Chmod(bad, 0o600))
	assert.Equal(t, testkit.Lines("secret", 0, 5), b.waitFor(t, "secret.log", 5))
	assert.NotEmpty(t, b.logs.FilterMessageSnippet("readable again").FilterField(zap.String("path", bad)).All())
	b.neighbourAlive(t)
}

// A directory that matches the glob is skipped, with one warning, not one per poll; the files
// in it are not read.
func TestBadInputDirectoryMatchesGlob(t *testing.T) {
	b := newBadRun(t)
	dir := b.path("dir.log")
	require.NoError(t, os.Mkdir(dir, 0o755))
	testkit.WriteFile(t, filepath.Join(dir, "inner.log"), "inside\n")
	b.start(t, testConfig(b.dir))
	b.reportedOnce(t, map[string]string{dir: "is a directory"})
	assert.Empty(t, b.bodiesOf("inner.log"))
	b.neighbourAlive(t)
}

// Timestamps that go backwards, lie far in the future or are invalid, with merge: no entry is
// dropped. Entries held together are put back in order; an entry earlier than what already went
// out is delivered at once and counted in entries_late; a far-future instant is kept (and, once
// it went out, later entries count as late); a date that does not exist (31 Feb) or an instant
// beyond what a LogRecord holds (after 2262) gives a record without Timestamp, counted in
// entries_untimed, placed after the entry before it.
func TestBadInputTimestamps(t *testing.T) {
	b := newBadRun(t)
	bad := b.path("bad.log")
	testkit.WriteFile(t, bad, testkit.Text([]string{
		"2024-03-01T10:00:05Z ahead",
		"2024-03-01T10:00:03Z backwards",
		"2024-02-31T10:00:00Z no such day",
		"3000-01-01T00:00:00Z beyond int64 nanoseconds",
		"2200-01-01T00:00:00Z far future",
	}))
	cfg := testConfig(b.dir)
	cfg.Timestamp = &TimestampConfig{Format: "rfc3339"}
	cfg.Merge = MergeConfig{Enabled: true, Window: 100 * time.Millisecond, MaxHeldPerFile: 100}
	b.start(t, cfg)
	b.waitFor(t, "bad.log", 5)
	testkit.AppendFile(t, bad, "2024-03-01T10:00:01Z late\n")
	b.waitFor(t, "bad.log", 6)
	b.tel.waitSum(t, "otelcol_receiver_mergelog_entries_late", 1)
	b.tel.waitSum(t, "otelcol_receiver_mergelog_entries_untimed", 2)
	assert.Never(t, func() bool {
		return b.tel.sum("otelcol_receiver_mergelog_entries_late", nil) > 1 ||
			b.tel.sum("otelcol_receiver_mergelog_entries_untimed", nil) > 2
	}, settle, 5*time.Millisecond, "entries counted twice")
	assert.Equal(t, int64(1), b.tel.sum("otelcol_receiver_mergelog_entries_late", nil))
	assert.Equal(t, int64(2), b.tel.sum("otelcol_receiver_mergelog_entries_untimed", nil))

	at := func(s string) time.Time {
		ts, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return ts
	}
	want := []struct {
		body string
		at   time.Time
	}{
		{"2024-03-01T10:00:03Z backwards", at("2024-03-01T10:00:03Z")},
		{"2024-02-31T10:00:00Z no such day", time.Time{}},
		{"3000-01-01T00:00:00Z beyond int64 nanoseconds", time.Time{}},
		{"2024-03-01T10:00:05Z ahead", at("2024-03-01T10:00:05Z")},
		{"2200-01-01T00:00:00Z far future", at("2200-01-01T00:00:00Z")},
		{"2024-03-01T10:00:01Z late", at("2024-03-01T10:00:01Z")},
	}
	got := b.recordsOf("bad.log")
	require.Len(t, got, len(want))
	for i, w := range want {
		assert.Equal(t, w.body, got[i].Body().Str())
		if w.at.IsZero() {
			assert.Equal(t, pcommon.Timestamp(0), got[i].Timestamp(), w.body)
		} else {
			assert.Equal(t, w.at, got[i].Timestamp().AsTime(), w.body)
		}
	}
	b.neighbourAlive(t)
	// The neighbour's new lines came after the year 2200 went out: all 10 late.
	b.tel.waitSum(t, "otelcol_receiver_mergelog_entries_late", 11)
	assert.Equal(t, int64(11), b.tel.sum("otelcol_receiver_mergelog_entries_late", nil))
}

// A multiline pattern that never matches does not make entries grow without bound. With
// force_flush_period 0, nothing is emitted for being idle, so every record that arrives was
// cut by a cap while the file was being read: an entry is never longer than max_log_size (cut
// at exactly max_log_size bytes, as file_log cuts) nor has more than max_lines lines, and only
// the last, still open, waits.
func TestBadInputPatternNeverMatches(t *testing.T) {
	// Lines of 17 bytes: no start, no end.
	lines := testkit.Lines("no-pattern", 100000, 110000)
	for _, tc := range []struct {
		name       string
		start, end string
		first      string // the line before them
		maxBytes   ByteSize
		maxLines   int
	}{
		// The neighbour's lines match every pattern here, so they are entries of their own.
		// Lines before any start line are one entry, as in file_log: cut at max_log_size.
		{name: "start never", start: `\d{4}-`, maxBytes: 8 << 10},
		// One start line, then no other: the entry is cut at max_log_size, or max_lines.
		{name: "start once, max_log_size", start: `START|\d{4}-`, first: "START", maxBytes: 8 << 10},
		{name: "start once, max_lines", start: `START|\d{4}-`, first: "START", maxBytes: 1 << 20, maxLines: 100},
		// No end line: the same.
		{name: "end never, max_log_size", end: `\d{4}-`, maxBytes: 8 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBadRun(t)
			input := lines
			if tc.first != "" {
				input = append([]string{tc.first}, lines...)
			}
			testkit.WriteFile(t, b.path("bad.log"), testkit.Text(input))
			cfg := testConfig(b.dir)
			cfg.ForceFlushPeriod = 0
			cfg.PreserveLeadingWhitespaces = true // keep every byte, to compare
			cfg.PreserveTrailingWhitespaces = true
			cfg.Multiline.LineStartPattern, cfg.Multiline.LineEndPattern = tc.start, tc.end
			cfg.Multiline.MaxLines = tc.maxLines
			if tc.maxBytes > 0 {
				cfg.MaxLogSize = tc.maxBytes
			}
			b.start(t, cfg)

			all := strings.Join(input, "\n")
			// What may still wait: the open entry, at most one cap's worth.
			open := int(tc.maxBytes)
			// The records joined back: with '\n' where max_lines cut (at line ends); directly
			// where max_log_size cut (at its exact byte, inside lines or after a '\n'). A cut when
			// the entry was exactly full drops the '\n' before the next line, so the bytes cut
			// by max_log_size compare without the '\n's.
			joined := func(got []string) string { return strings.ReplaceAll(strings.Join(got, ""), "\n", "") }
			want := strings.ReplaceAll(all, "\n", "")
			if tc.maxLines > 0 {
				open = len(testkit.Text(input[:tc.maxLines]))
				joined = func(got []string) string { return strings.Join(got, "\n") }
				want = all
			}
			var got []string
			require.Eventually(t, func() bool {
				got = b.bodiesOf("bad.log")
				return len(joined(got)) >= len(want)-open
			}, testkit.Timeout, 5*time.Millisecond, "records cut by the caps")
			covered := joined(got)
			require.True(t, strings.HasPrefix(want, covered), "the records are the input, in order")
			if tc.maxLines > 0 {
				require.True(t, len(covered) == len(all) || all[len(covered)] == '\n', "records end at line ends")
			}
			for i, body := range got {
				if tc.maxLines > 0 {
					require.LessOrEqual(t, len(body), int(cfg.MaxLogSize), "record %d", i)
					require.Equal(t, tc.maxLines, strings.Count(body, "\n")+1, "record %d: cut at max_lines", i)
				} else {
					require.Len(t, body, int(cfg.MaxLogSize), "record %d: cut at exactly max_log_size", i)
				}
			}
			if tc.start == "" {
				b.neighbourAlive(t)
				return
			}
			// With a start pattern and no idle flush, the neighbour's last line waits for the
			// next start line: the neighbour gets one after its lines.
			testkit.AppendFile(t, b.path(goodFile), testkit.Text(goodLines(10, 20))+"2024-03-01T10:01:00Z next\n")
			assert.Equal(t, goodLines(0, 20), b.waitFor(t, goodFile, 20))
		})
	}
}
