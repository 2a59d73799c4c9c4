package multiline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/longbuf"
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type entry struct {
	Text string
	End  int64
}

func pattern(t testing.TB, p string) *linestart.Matcher {
	t.Helper()
	m, err := linestart.Compile(p)
	require.NoError(t, err)
	return m
}

// ends returns the end offset of each line when the lines are stored one after another, each
// followed by a newline.
func ends(lines []string) []int64 {
	out := make([]int64, len(lines))
	var off int64
	for i, l := range lines {
		off += int64(len(l)) + 1
		out[i] = off
	}
	return out
}

// join runs lines through a Joiner and flushes it.
func join(t testing.TB, cfg Config, lines []string) ([]entry, Stats) {
	t.Helper()
	var got []entry
	j, err := New(cfg, func(text []byte, end int64) { got = append(got, entry{string(text), end}) })
	require.NoError(t, err)
	for i, end := range ends(lines) {
		j.Add([]byte(lines[i]), end)
	}
	j.Flush()
	require.False(t, j.Pending())
	return got, j.Stats()
}

func TestModes(t *testing.T) {
	S, C, E := pattern(t, `S`), pattern(t, `[ \t]`), pattern(t, `.*E$`)
	tests := []struct {
		name  string
		cfg   Config
		lines []string
		want  []entry // End is the end offset from ends(lines)
		stats Stats
	}{
		{
			name:  "none",
			lines: []string{"a", "", "S"},
			want:  []entry{{"a", 2}, {"", 3}, {"S", 5}},
			stats: Stats{Entries: 3},
		},
		{
			name:  "start",
			cfg:   Config{Start: S},
			lines: []string{"x", " y", "S1", " a", "b", "S2", "", "S3"},
			// The lines before the first start line are one entry, as file_log gives them.
			want:  []entry{{"x\n y", 5}, {"S1\n a\nb", 13}, {"S2\n", 17}, {"S3", 20}},
			stats: Stats{Entries: 4},
		},
		{
			name:  "continue",
			cfg:   Config{Continue: C},
			lines: []string{" o1", "\to2", "A", " a", " b", "B", "", " c"},
			want:  []entry{{" o1\n\to2", 8}, {"A\n a\n b", 16}, {"B", 18}, {"\n c", 22}},
			stats: Stats{Entries: 4},
		},
		{
			name:  "start+continue",
			cfg:   Config{Start: S, Continue: C},
			lines: []string{"x", " y", "S1", " a", "z", " w", "S2", " b", "S3", "S4", " c"},
			want: []entry{{"x", 2}, {" y", 5}, {"S1\n a", 11}, {"z", 13}, {" w", 16}, {"S2\n b", 22},
				{"S3", 25}, {"S4\n c", 31}},
			stats: Stats{Entries: 8, Orphans: 4},
		},
		{
			name:  "start+end",
			cfg:   Config{Start: S, End: E},
			lines: []string{"x", "E0", "S1", "a", "S2", "1E", "y", "SE", "S3", "b"},
			want: []entry{{"x", 2}, {"E0", 5}, {"S1\na\nS2\n1E", 16}, {"y", 18}, {"SE", 21},
				{"S3", 24}, {"b", 26}},
			stats: Stats{Entries: 7, Orphans: 5},
		},
		{
			name:  "continue+end",
			cfg:   Config{Continue: C, End: E},
			lines: []string{"x", " a", " b", "1E", "2E", " c", "y", " dE", " e"},
			want: []entry{{"x", 2}, {" a\n b\n1E", 11}, {"2E", 14}, {" c", 17}, {"y", 19},
				{" dE", 23}, {" e", 26}},
			stats: Stats{Entries: 7, Orphans: 5},
		},
		{
			name:  "end",
			cfg:   Config{End: E},
			lines: []string{"a", "", "1E", "2E", "c", "d"},
			// Flushed without an end line: one entry, as file_log flushes it.
			want:  []entry{{"a\n\n1E", 6}, {"2E", 9}, {"c\nd", 13}},
			stats: Stats{Entries: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stats := join(t, tt.cfg, tt.lines)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.stats, stats)
		})
	}
}

func TestCaps(t *testing.T) {
	S, C, E := pattern(t, `S`), pattern(t, `[ \t]`), pattern(t, `.*E$`)
	tests := []struct {
		name  string
		cfg   Config
		lines []string
		want  []entry
		stats Stats
	}{
		{
			name:  "lines",
			cfg:   Config{Start: S, MaxLines: 2},
			lines: []string{"S", "a", "b", "c", "S2", "d", "S3"},
			want:  []entry{{"S\na", 4}, {"b\nc", 8}, {"S2\nd", 13}, {"S3", 16}},
			stats: Stats{Entries: 4, Split: 1},
		},
		{
			name:  "one line",
			cfg:   Config{Start: S, MaxLines: 1},
			lines: []string{"x", "S", "a"},
			want:  []entry{{"x", 2}, {"S", 4}, {"a", 6}},
			stats: Stats{Entries: 3, Split: 1},
		},
		{
			name:  "lines, end mode keeps waiting for the end",
			cfg:   Config{Start: S, End: E, MaxLines: 2},
			lines: []string{"S", "a", "b", "E", "x"},
			want:  []entry{{"S\na", 4}, {"b\nE", 8}, {"x", 10}},
			stats: Stats{Entries: 3, Orphans: 1, Split: 1},
		},
		{
			name:  "bytes split",
			cfg:   Config{Start: S, MaxBytes: 5},
			lines: []string{"S", "abc", "defghijklmn", "S2", "xx", "S34567"},
			// Pieces of a line longer than the cap carry an offset inside it (its end less one)
			// until its last piece, which carries its end.
			want: []entry{{"S\nabc", 6}, {"defgh", 17}, {"ijklm", 17}, {"n", 18}, {"S2\nxx", 24},
				{"S3456", 30}, {"7", 31}},
			stats: Stats{Entries: 7, Split: 4},
		},
		{
			// Cut at exactly MaxBytes, inside a line, as file_log cuts: the piece carries the end
			// of the last line that ends in it; the rest of the line starts the next entry.
			name:  "bytes cut inside a line",
			cfg:   Config{Start: S, MaxBytes: 8},
			lines: []string{"S", "abc", "defgh", "ij", "S2"},
			want:  []entry{{"S\nabc\nde", 6}, {"fgh\nij", 15}, {"S2", 18}},
			stats: Stats{Entries: 3, Split: 1},
		},
		{
			name:  "bytes cut after a separator, and with the entry exactly full",
			cfg:   Config{Start: S, MaxBytes: 6},
			lines: []string{"S", "abc", "defgh", "ij", "S2", "wxy", "k"},
			want:  []entry{{"S\nabc\n", 6}, {"defgh\n", 12}, {"ij", 15}, {"S2\nwxy", 22}, {"k", 24}},
			stats: Stats{Entries: 5, Split: 3},
		},
		{
			name:  "bytes cut in the end mode, and before a line as long as an entry",
			cfg:   Config{End: E, MaxBytes: 6},
			lines: []string{"ab", "cdefg", "hijklm", "nE", "op"},
			want:  []entry{{"ab\ncde", 3}, {"fg", 9}, {"hijklm", 16}, {"nE", 19}, {"op", 22}},
			stats: Stats{Entries: 5, Split: 3},
		},
		{
			name:  "bytes split exactly",
			cfg:   Config{MaxBytes: 3},
			lines: []string{"abcdef", "", "ghi"},
			want:  []entry{{"abc", 6}, {"def", 7}, {"", 8}, {"ghi", 12}},
			stats: Stats{Entries: 4, Split: 1},
		},
		{
			name:  "truncate",
			cfg:   Config{Start: S, MaxBytes: 5, Truncate: true},
			lines: []string{"S", "abc", "defg", "S2", "toolongline", "S3", "", "", "", "", "", "x"},
			want:  []entry{{"S\nabc", 11}, {"S2\nto", 26}, {"S3\n\n\n", 36}},
			stats: Stats{Entries: 3, Truncated: 3, TruncatedBytes: 5 + 9 + 4},
		},
		{
			name:  "truncate orphans",
			cfg:   Config{Start: S, MaxBytes: 2, Truncate: true},
			lines: []string{"abc", "S"},
			want:  []entry{{"ab", 4}, {"S", 6}},
			stats: Stats{Entries: 2, Truncated: 1, TruncatedBytes: 1},
		},
		{
			name:  "truncate, unmatched lines go out as far as kept",
			cfg:   Config{Continue: C, End: E, MaxBytes: 6, Truncate: true},
			lines: []string{" ab", " cd", " ef", "x"},
			want:  []entry{{" ab", 4}, {" c", 8}},
			stats: Stats{Entries: 2, Orphans: 2, Truncated: 1, TruncatedBytes: 1 + 4 + 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stats := join(t, tt.cfg, tt.lines)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.stats, stats)
		})
	}
}

func TestFlush(t *testing.T) {
	var got []entry
	j, err := New(Config{Start: pattern(t, `S`)}, func(text []byte, end int64) {
		got = append(got, entry{string(text), end})
	})
	require.NoError(t, err)
	assert.False(t, j.Pending())
	j.Flush() // nothing to emit
	assert.Empty(t, got)

	j.Add([]byte("S1"), 10)
	j.Add([]byte(" a"), 20)
	assert.True(t, j.Pending())
	assert.Empty(t, got)
	j.Flush()
	assert.False(t, j.Pending())
	assert.Equal(t, []entry{{"S1\n a", 20}}, got)

	// After an idle flush the entry is gone: a late continuation line opens an entry of lines
	// before a start line, as file_log's next token is.
	j.Add([]byte(" b"), 30)
	j.Add([]byte(" c"), 40)
	assert.Equal(t, []entry{{"S1\n a", 20}}, got)
	j.Add([]byte("S2"), 50)
	assert.Equal(t, []entry{{"S1\n a", 20}, {" b\n c", 40}}, got)
	assert.Equal(t, Stats{Entries: 2}, j.Stats())
}

func TestNew(t *testing.T) {
	S := pattern(t, `S`)
	sink := func([]byte, int64) {}
	_, err := New(Config{Start: S, Continue: S, End: S}, sink)
	assert.ErrorContains(t, err, "cannot all be set")
	_, err = New(Config{Start: S}, nil)
	assert.Error(t, err)
	_, err = New(Config{MaxLines: -1}, sink)
	assert.Error(t, err)
	_, err = New(Config{MaxBytes: -1}, sink)
	assert.Error(t, err)
}

// FuzzJoin checks that nothing is lost, duplicated or reordered: without Truncate, the entries
// joined back (with '\n' where an entry ended at the end of a line, directly where a cap cut a
// line) give the input, each entry carries the end offset of its last line (of the last line that
// ends in it, for one cut inside a line; of that line, for a piece inside it), and the caps hold.
func FuzzJoin(f *testing.F) {
	f.Add([]byte("x\nS1\n a\nb\nS2\n\nS3"), uint8(1), uint8(0), uint8(0), false)
	f.Add([]byte("S\n a\n bE\nc\nE\n\n"), uint8(4), uint8(2), uint8(5), false)
	f.Add([]byte(" a\n b\nyE\n c\nd"), uint8(5), uint8(0), uint8(3), true)
	f.Add([]byte("a\nbE\nccccccccccccE"), uint8(6), uint8(3), uint8(4), false)
	S, C, E := pattern(f, `S`), pattern(f, `[ \t]`), pattern(f, `.*E$`)
	modes := []Config{{}, {Start: S}, {Continue: C}, {Start: S, Continue: C}, {Start: S, End: E},
		{Continue: C, End: E}, {End: E}, {Detect: stacktrace.All}}
	f.Fuzz(func(t *testing.T, data []byte, mode, maxLines, maxBytes uint8, truncate bool) {
		cfg := modes[int(mode)%len(modes)]
		cfg.MaxLines = int(maxLines % 6)
		cfg.MaxBytes = int(maxBytes % 24)
		cfg.Truncate = truncate
		checkJoin(t, cfg, data)
	})
}

// checkJoin joins the lines of data with cfg and checks what FuzzJoin says.
func checkJoin(t *testing.T, cfg Config, data []byte) {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	got, stats := join(t, cfg, lines)
	require.EqualValues(t, len(got), stats.Entries)
	for _, e := range got {
		if cfg.MaxBytes > 0 {
			require.LessOrEqual(t, len(e.Text), cfg.MaxBytes, "entry %q", e.Text)
		}
		if cfg.MaxLines > 0 {
			require.LessOrEqual(t, strings.Count(e.Text, "\n")+1, cfg.MaxLines, "entry %q", e.Text)
		}
	}
	if cfg.Truncate && cfg.MaxBytes > 0 {
		return
	}
	require.Zero(t, stats.TruncatedBytes)

	input := strings.Join(lines, "\n")
	lineEnds := ends(lines)
	lineAt := make([]int, len(input)+1) // the line each position of input is in
	for i, l := 0, 0; i <= len(input); i++ {
		lineAt[i] = l
		if i < len(input) && input[i] == '\n' {
			l++
		}
	}
	pos := 0
	for i, e := range got {
		require.True(t, strings.HasPrefix(input[pos:], e.Text), "entry %d %q at %d of %q", i, e.Text, pos, input)
		from := pos
		// The position after the entry is in its last line (a '\n' belongs to the line before).
		pos += len(e.Text)
		last := lineAt[pos]
		var want int64
		switch atEnd := pos == len(input) || input[pos] == '\n'; {
		case atEnd:
			want = lineEnds[last]
		case lineAt[from] < last:
			want = lineEnds[last-1] // cut inside a line: the last line that ends in the entry
		default:
			want = lineEnds[last] - 1 // a piece inside one line: an offset inside it
		}
		require.Equal(t, want, e.End, "end of entry %d %q", i, e.Text)
		if pos < len(input) && input[pos] == '\n' {
			pos++
		}
	}
	require.Equal(t, len(input), pos, "entries %q do not cover %q", got, input)
}

// logtailWorkload returns about size bytes of the log of the Logtail article: entries of a first
// line of about 1100 bytes, `cnt:N,thread:2,log:` and an exception text, then three lines of stack
// trace.
func logtailWorkload(size int) []byte {
	const (
		filler = "Exception in thread \"main\" java.lang.NullPointerExceptionat  com.example.myproject.Book.getTitle"
		frame  = "    at com.example.myproject.Book.getTitle(Book.java:16)\n"
	)
	buf := make([]byte, 0, size+2048)
	for n := 0; len(buf) < size; n++ {
		start := len(buf)
		buf = append(buf, "cnt:"...)
		buf = appendInt(buf, 13472391+n)
		buf = append(buf, ",thread:2,log:"...)
		for len(buf)-start < 1100 {
			buf = append(buf, filler...)
		}
		buf = append(buf[:start+1100], '\n')
		for range 3 {
			buf = append(buf, frame...)
		}
	}
	return buf
}

func appendInt(b []byte, n int) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return append(b, d[i:]...)
		}
	}
}

func TestLogtailWorkload(t *testing.T) {
	buf := logtailWorkload(1 << 20)
	var got []entry
	j, err := New(Config{Start: pattern(t, `cnt.*`)}, func(text []byte, end int64) {
		got = append(got, entry{string(text), end})
	})
	require.NoError(t, err)
	lines := 0
	for off := 0; off < len(buf); {
		n := bytes.IndexByte(buf[off:], '\n')
		j.Add(buf[off:off+n], int64(off+n+1))
		off += n + 1
		lines++
	}
	j.Flush()
	require.Equal(t, lines/4, len(got))
	for _, e := range got {
		assert.Equal(t, 1100+3*(1+56), len(e.Text))
		assert.True(t, strings.HasPrefix(e.Text, "cnt:"))
	}
	assert.Equal(t, int64(len(buf)), got[len(got)-1].End)
	assert.Equal(t, Stats{Entries: int64(len(got))}, j.Stats())
}

// The patterns avoid the regexp path: under -race, sync.Pool drops items on purpose. Where every
// line is an orphan, the whole workload is one open entry, longer than longbuf.Keep: its buffer
// goes back as it ends and is grown again, up to Keep, then lent: a few allocations an entry
// that long, none a line (the workload has thousands).
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	buf := logtailWorkload(256 << 10)
	orphans := Config{Start: pattern(t, `\d{4}-\d{2}-\d{2}`)}
	for _, cfg := range []Config{
		{Start: pattern(t, `cnt.*`)},
		orphans,
		{End: pattern(t, `    at`), MaxLines: 3},
		{Start: pattern(t, `cnt`), End: pattern(t, `x`), MaxBytes: 700, Truncate: true},
		{Start: pattern(t, `cnt.*`), MaxBytes: 1 << 20}, // the receiver's default cap
		{Start: pattern(t, `cnt.*`), MaxBytes: 1200},    // cut inside lines
		{Start: pattern(t, `cnt.*`), MaxBytes: 700},     // first lines longer than an entry
	} {
		j, err := New(cfg, func([]byte, int64) {})
		require.NoError(t, err)
		feed := func() {
			for off := 0; off < len(buf); {
				n := bytes.IndexByte(buf[off:], '\n')
				j.Add(buf[off:off+n], int64(off+n+1))
				off += n + 1
			}
			j.Flush()
		}
		feed()
		allowed := 0.0
		if cfg.Start == orphans.Start {
			allowed = 32
		}
		assert.LessOrEqual(t, testing.AllocsPerRun(5, feed), allowed, "config %+v", cfg)
	}
}

// BenchmarkJoin reads the Logtail workload from memory: cutting lines with bytes.IndexByte alone
// (the baseline), then cutting and joining with a start pattern. MB/s is input bytes.
func BenchmarkJoin(b *testing.B) {
	buf := logtailWorkload(16 << 20)
	cut := func(add func(line []byte, end int64)) {
		for off := 0; off < len(buf); {
			n := bytes.IndexByte(buf[off:], '\n')
			add(buf[off:off+n], int64(off+n+1))
			off += n + 1
		}
	}
	b.Run("cut", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		var lines, last int64
		for b.Loop() {
			cut(func(_ []byte, end int64) { lines++; last = end })
		}
		if last != int64(len(buf)) || lines == 0 {
			b.Fatal("cut lost lines")
		}
	})
	for _, p := range []string{`cnt.*`, `^cnt`} {
		b.Run("join="+p, func(b *testing.B) {
			var entries int64
			j, err := New(Config{Start: pattern(b, p)}, func([]byte, int64) { entries++ })
			if err != nil {
				b.Fatal(err)
			}
			cut(j.Add) // grow the entry buffer before measuring
			j.Flush()
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				cut(j.Add)
				j.Flush()
			}
			if j.Stats().Orphans != 0 || entries == 0 {
				b.Fatal("bad join")
			}
		})
	}
}

// Held follows the open entry's text; a buffer grown by a long entry is given back when the
// entry ends (a catch-up of files that each end in a long entry holds one, not one per file),
// and one of longbuf.Keep or less is kept for the next.
func TestHeldAndLongEntryBuffer(t *testing.T) {
	j, err := New(Config{Start: pattern(t, `start`)}, func([]byte, int64) {})
	require.NoError(t, err)
	j.Add([]byte("start"), 6)
	long := bytes.Repeat([]byte("x"), longbuf.Keep)
	j.Add(long, int64(7+len(long)))
	assert.Equal(t, len("start\n")+len(long), j.Held())
	j.Release()
	assert.Equal(t, len("start\n")+len(long), j.Held(), "an open entry keeps its buffer")
	j.Flush()
	assert.Zero(t, j.Held())
	assert.Zero(t, cap(j.buf), "a long entry's buffer given back as it ended")

	j.Add([]byte("start short"), 12)
	j.Flush()
	j.Release()
	assert.Positive(t, cap(j.buf), "a short entry's buffer kept for the next")
}
