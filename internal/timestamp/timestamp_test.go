package timestamp

import (
	"bytes"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the host's zoneinfo

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newParser(t testing.TB, cfg Config) *Parser {
	t.Helper()
	p, err := New(cfg)
	require.NoError(t, err)
	return p
}

func loadLocation(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

// utc reads an RFC 3339 instant for expectations.
func utc(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

type parseCase struct {
	in   string
	want string // RFC 3339 instant; empty means the parse fails
}

func runCases(t *testing.T, p *Parser, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		got, ok := p.Parse([]byte(tc.in))
		if tc.want == "" {
			assert.False(t, ok, "%q parsed as %s", tc.in, time.Unix(0, got).UTC())
			continue
		}
		if assert.True(t, ok, "%q", tc.in) {
			assert.Equal(t, time.Unix(0, utc(tc.want)).UTC(), time.Unix(0, got).UTC(), "%q", tc.in)
		}
	}
}

func TestCLF(t *testing.T) {
	runCases(t, newParser(t, Config{}), []parseCase{
		{`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`, "2000-10-10T20:55:36Z"},
		{`h - - [15/Mar/2026:12:00:00 +0100] "GET /"`, "2026-03-15T11:00:00Z"},
		{`h - - [15/Mar/2026:12:00:00 +0900] "GET /"`, "2026-03-15T03:00:00Z"},
		{`h - - [15/Mar/2026:12:00:00 -0500] "GET /"`, "2026-03-15T17:00:00Z"},
		{`h - - [15/Mar/2026:12:00:00 +0000]`, "2026-03-15T12:00:00Z"},
		{`h - - [15/Mar/2026:12:00:00 +0530]`, "2026-03-15T06:30:00Z"},
		{`h - - [15/Mar/2026:12:00:00 +1800]`, "2026-03-14T18:00:00Z"},
		{`h - - [15/Mar/2026:12:00:00 -1800]`, "2026-03-16T06:00:00Z"},
		{`[01/Jan/1970:00:00:00 +0000]`, "1970-01-01T00:00:00Z"},
		{`[31/Dec/1969:23:59:59 +0000]`, "1969-12-31T23:59:59Z"},
		{`[01/Jan/1970:01:00:00 +0100]`, "1970-01-01T00:00:00Z"},
		// A fraction, as custom %{...}t formats write it.
		{`[10/Oct/2000:13:55:36.123 -0700]`, "2000-10-10T20:55:36.123Z"},
		{`[10/Oct/2000:13:55:36,5 -0700]`, "2000-10-10T20:55:36.5Z"},
		{`[10/Oct/2000:13:55:36.1234567891 -0700]`, "2000-10-10T20:55:36.123456789Z"},
		// Month names in any case.
		{`[10/OCT/2000:13:55:36 -0700]`, "2000-10-10T20:55:36Z"},
		{`[10/oct/2000:13:55:36 -0700]`, "2000-10-10T20:55:36Z"},
		{`[01/Jan/2024:00:00:00 +0000]`, "2024-01-01T00:00:00Z"},
		{`[01/Feb/2024:00:00:00 +0000]`, "2024-02-01T00:00:00Z"},
		{`[01/May/2024:00:00:00 +0000]`, "2024-05-01T00:00:00Z"},
		{`[01/Jun/2024:00:00:00 +0000]`, "2024-06-01T00:00:00Z"},
		{`[01/Jul/2024:00:00:00 +0000]`, "2024-07-01T00:00:00Z"},
		{`[01/Aug/2024:00:00:00 +0000]`, "2024-08-01T00:00:00Z"},
		{`[01/Sep/2024:00:00:00 +0000]`, "2024-09-01T00:00:00Z"},
		{`[01/Nov/2024:00:00:00 +0000]`, "2024-11-01T00:00:00Z"},
		{`[31/Dec/2024:23:59:59 +0000]`, "2024-12-31T23:59:59Z"},
		// Leap years: 2000 (divisible by 400), 2024 yes; 1900, 2023, 2100 no.
		{`[29/Feb/2000:12:00:00 +0000]`, "2000-02-29T12:00:00Z"},
		{`[29/Feb/2024:12:00:00 +0000]`, "2024-02-29T12:00:00Z"},
		{`[01/Mar/2024:00:00:00 +0100]`, "2024-02-29T23:00:00Z"},
		{`[29/Feb/1900:12:00:00 +0000]`, ""},
		{`[29/Feb/2023:12:00:00 +0000]`, ""},
		{`[29/Feb/2100:12:00:00 +0000]`, ""},
		{`[28/Feb/1900:12:00:00 +0000]`, "1900-02-28T12:00:00Z"},
		// Invalid fields fail rather than roll over.
		{`[31/Feb/2024:12:00:00 +0000]`, ""},
		{`[31/Apr/2024:12:00:00 +0000]`, ""},
		{`[32/Jan/2024:12:00:00 +0000]`, ""},
		{`[00/Jan/2024:12:00:00 +0000]`, ""},
		{`[10/Foo/2024:12:00:00 +0000]`, ""},
		{`[10/Oct/2024:24:00:00 +0000]`, ""},
		{`[10/Oct/2024:25:00:00 +0000]`, ""},
		{`[10/Oct/2024:12:60:00 +0000]`, ""},
		{`[31/Dec/2016:23:59:60 +0000]`, ""}, // leap second
		{`[10/Oct/2024:12:00:00 +1801]`, ""},
		{`[10/Oct/2024:12:00:00 +1900]`, ""},
		{`[10/Oct/2024:12:00:00 +0160]`, ""},
		{`[10/Oct/2024:12:00:00 *0100]`, ""},
		{`[10/Oct/2024:12:00:00 +01]`, ""},
		{`[10/Oct/2024:12:00:00]`, ""},
		{`[10/Oct/2024:12:00:00  +0000]`, "2024-10-10T12:00:00Z"}, // a run of spaces, as time.Parse
		{`[1/Oct/2024:12:00:00 +0000]`, ""},
		{`[10/Oct/24:12:00:00 +0000]`, ""},
		{`[10/Oct/2024 12:00:00 +0000]`, ""},
		{`[10/Oct/2024:1:00:00 +0000]`, ""},
		{`[10/Oct/2024:12:00:00.x +0000]`, ""},
		{`[10/Oct/202x:12:00:00 +0000]`, ""},
		{`no bracket 10/Oct/2024:12:00:00 +0000`, ""},
		{`[`, ""},
		{``, ""},
		// Only the first '[' counts.
		{`host [x] [10/Oct/2024:12:00:00 +0000]`, ""},
		// The int64 nanosecond range: 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z.
		{`[11/Apr/2262:23:47:16.854775807 +0000]`, "2262-04-11T23:47:16.854775807Z"},
		{`[11/Apr/2262:23:47:16.854775808 +0000]`, ""},
		{`[21/Sep/1677:00:12:43.145224192 +0000]`, "1677-09-21T00:12:43.145224192Z"},
		{`[21/Sep/1677:00:12:43.145224191 +0000]`, ""},
		{`[01/Jan/9999:00:00:00 +0000]`, ""},
		{`[01/Jan/0000:00:00:00 +0000]`, ""},
	})
}

func TestRFC3339(t *testing.T) {
	cases := []parseCase{
		{"2024-03-10T12:34:56Z level=info", "2024-03-10T12:34:56Z"},
		{"2024-03-10 12:34:56Z", "2024-03-10T12:34:56Z"},
		{"2024-03-10T12:34:56.1Z", "2024-03-10T12:34:56.1Z"},
		{"2024-03-10T12:34:56.123456789Z", "2024-03-10T12:34:56.123456789Z"},
		{"2024-03-10T12:34:56.1234567891234Z", "2024-03-10T12:34:56.123456789Z"},
		{"2024-03-10T12:34:56,250Z", "2024-03-10T12:34:56.25Z"},
		{"2024-03-10T12:34:56.000001+01:00", "2024-03-10T11:34:56.000001Z"},
		{"2024-03-10T12:34:56+0100", "2024-03-10T11:34:56Z"},
		{"2024-03-10T12:34:56+01", "2024-03-10T11:34:56Z"},
		{"2024-03-10T12:34:56+09:00", "2024-03-10T03:34:56Z"},
		{"2024-03-10T12:34:56-05:00", "2024-03-10T17:34:56Z"},
		{"2024-03-10T12:34:56-0700 x", "2024-03-10T19:34:56Z"},
		{"2024-03-10T12:34:56-07 x", "2024-03-10T19:34:56Z"},
		{"2024-03-10T12:34:56+05:45", "2024-03-10T06:49:56Z"},
		{"2024-03-10T12:34:56-00:00", "2024-03-10T12:34:56Z"},
		{"2024-03-10T12:34:56+18:00", "2024-03-09T18:34:56Z"},
		// A numeric offset after spaces.
		{"2024-03-10 12:34:56 +0100 INFO", "2024-03-10T11:34:56Z"},
		{"2024-03-10 12:34:56.5 -07:00 INFO", "2024-03-10T19:34:56.5Z"},
		{"2024-03-10 12:34:56  +0100", "2024-03-10T11:34:56Z"},
		{"2024-03-10 12:34:56 +1900", ""},
		// Not an offset after a space: the time has none (UTC here).
		{"2024-03-10 12:34:56 +01005", "2024-03-10T12:34:56Z"},
		{"2024-03-10 12:34:56 +01 x", "2024-03-10T12:34:56Z"},
		{"2024-03-10 12:34:56 - INFO", "2024-03-10T12:34:56Z"},
		{"2024-03-10 12:34:56 Z", "2024-03-10T12:34:56Z"},
		{"2024-03-10 12:34:56 INFO", "2024-03-10T12:34:56Z"},
		{"2024-03-10T12:34:56", "2024-03-10T12:34:56Z"},
		{"2024-03-10T12:34:56.", "2024-03-10T12:34:56Z"},
		// Leading blanks are skipped.
		{" \t 2024-03-10T12:34:56Z", "2024-03-10T12:34:56Z"},
		// Leap years.
		{"2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z"},
		{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
		{"1900-02-29T00:00:00Z", ""},
		{"2023-02-29T00:00:00Z", ""},
		// Failures.
		{"2024-02-30T00:00:00Z", ""},
		{"2024-04-31T00:00:00Z", ""},
		{"2024-13-01T00:00:00Z", ""},
		{"2024-00-01T00:00:00Z", ""},
		{"2024-01-00T00:00:00Z", ""},
		{"2024-01-01T24:00:00Z", ""},
		{"2024-01-01T25:00:00Z", ""},
		{"2024-01-01T00:60:00Z", ""},
		{"2016-12-31T23:59:60Z", ""},
		{"2024-03-10T12:34:56+1", ""},
		{"2024-03-10T12:34:56+01:3", ""},
		{"2024-03-10T12:34:56+013", ""},
		{"2024-03-10T12:34:56+01:60", ""},
		{"2024-03-10T12:34:56+19:00", ""},
		{"2024-03-10T12:34:56+18:01", ""},
		{"2024-03-10t12:34:56Z", ""},
		{"2024-03-10T1:34:56Z", ""},
		{"2024-03-10T12:34Z", ""},
		{"2024-03-10", ""},
		{"24-03-10T12:34:56Z", ""},
		{"x2024-03-10T12:34:56Z", ""},
		{"", ""},
	}
	runCases(t, newParser(t, Config{Format: "rfc3339"}), cases)
	runCases(t, newParser(t, Config{Format: "ISO8601"}), cases)
}

func TestLocation(t *testing.T) {
	ny := loadLocation(t, "America/New_York")
	p := newParser(t, Config{Format: "rfc3339", Location: ny})
	runCases(t, p, []parseCase{
		{"2024-01-15 12:00:00", "2024-01-15T17:00:00Z"},      // EST
		{"2024-07-15 12:00:00", "2024-07-15T16:00:00Z"},      // EDT
		{"2024-03-10 01:59:59", "2024-03-10T06:59:59Z"},      // last second of EST
		{"2024-03-10 03:00:00", "2024-03-10T07:00:00Z"},      // first second of EDT
		{"2024-11-03 00:59:59", "2024-11-03T04:59:59Z"},      // EDT
		{"2024-11-03 02:00:00", "2024-11-03T07:00:00Z"},      // EST
		{"2024-07-15 12:00:00Z", "2024-07-15T12:00:00Z"},     // an offset wins over Location
		{"2024-07-15 12:00:00+0200", "2024-07-15T10:00:00Z"}, // ditto
	})
	// In the gap (02:30 does not exist) and the overlap (01:30 happens twice), the result is
	// time.Date's.
	for _, wall := range []string{"2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-11-03 01:00:00", "2024-03-10 02:00:00"} {
		wt, err := time.ParseInLocation("2006-01-02 15:04:05", wall, ny)
		require.NoError(t, err)
		want := time.Date(wt.Year(), wt.Month(), wt.Day(), wt.Hour(), wt.Minute(), wt.Second(), 0, ny)
		got, ok := p.Parse([]byte(wall))
		require.True(t, ok)
		assert.Equal(t, want.UnixNano(), got, wall)
	}
	// Location applies to layouts and is ignored by CLF, which always has an offset.
	pl := newParser(t, Config{Format: "layout", Layout: "%Y-%m-%d %H:%M", Location: ny})
	runCases(t, pl, []parseCase{{"2024-07-15 12:00", "2024-07-15T16:00:00Z"}})
	pc := newParser(t, Config{Location: ny})
	runCases(t, pc, []parseCase{{"[15/Jul/2024:12:00:00 +0000]", "2024-07-15T12:00:00Z"}})
}

// TestWallToUTC checks the cached zone conversion against time.Date, in order (the cache hits)
// and at random (it misses), across zones with odd rules.
func TestWallToUTC(t *testing.T) {
	for _, name := range []string{"America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Apia", "America/Sao_Paulo", "Europe/Dublin"} {
		loc := loadLocation(t, name)
		p := newParser(t, Config{Format: "rfc3339", Location: loc})
		check := func(wall time.Time) {
			want := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, loc)
			got, ok := p.Parse(wall.AppendFormat(nil, "2006-01-02T15:04:05"))
			if !ok || got != want.UnixNano() {
				t.Fatalf("%s %s: %v %s, want %s", name, wall, ok, time.Unix(0, got).In(loc), want)
			}
		}
		// Every 17 minutes over 2011 passes each change in both directions (and Samoa's lost day).
		for w := time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC); w.Year() < 2012; w = w.Add(17 * time.Minute) {
			check(w)
		}
		seed := uint64(0)
		for range 5000 {
			seed = seed*6364136223846793005 + 1442695040888963407
			check(time.Unix(int64(seed>>20%(300*365*86400))-2208988800, 0).UTC()) // 1900-2200
		}
	}
}

func TestRegex(t *testing.T) {
	p := newParser(t, Config{Format: "rfc3339", Regex: `\bts=(\S+)`})
	runCases(t, p, []parseCase{
		{"level=info ts=2024-03-10T12:34:56Z msg=x", "2024-03-10T12:34:56Z"},
		{"level=info msg=x", ""},
		{"level=info ts=garbage", ""},
	})
	p = newParser(t, Config{Format: "rfc3339", Regex: `^(?:x=(\d))?(y)?`})
	runCases(t, p, []parseCase{{"y", ""}}) // the first group did not take part
	p = newParser(t, Config{Regex: `\[([^]]*)\] "`})
	runCases(t, p, []parseCase{{`[x] [10/Oct/2000:13:55:36 -0700] "GET /"`, "2000-10-10T20:55:36Z"}})
	p = newParser(t, Config{Format: "layout", Layout: "%b %e %H:%M:%S %Y", Regex: `time="([^"]+)"`})
	runCases(t, p, []parseCase{{`level=info time="Oct  5 13:55:36 2023" msg=x`, "2023-10-05T13:55:36Z"}})
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Format: "apache"}, `unknown format "apache"`},
		{Config{Format: "layout"}, "needs a layout"},
		{Config{Layout: "%Y"}, "only used with format layout"},
		{Config{Format: "layout", Layout: "%Y-%m-%d %Q"}, "%Q at byte 9: unknown directive"},
		{Config{Format: "layout", Layout: "%Y-%m-%d %"}, "lone '%'"},
		{Config{Format: "layout", Layout: "%Y-%m-%d %H:%M:%S%f"}, "%f at byte 17: a fraction of a second must follow '.' or ','"},
		{Config{Format: "layout", Layout: "%Y-%d"}, "no month"},
		{Config{Format: "layout", Layout: "%Y-%m"}, "no day of the month"},
		{Config{Format: "layout", Layout: "%F %H %p"}, "%p without a 12-hour"},
		{Config{Format: "layout", Layout: "%F %H %I"}, "both a 24-hour %H and a 12-hour"},
		{Config{Regex: `(`}, "timestamp: regex: error parsing regexp"},
		{Config{Regex: `ts=\S+`}, "has no capture group"},
	} {
		_, err := New(tc.cfg)
		if assert.Error(t, err, "%+v", tc.cfg) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	p := newParser(t, Config{Format: "rfc3339", Location: loadLocation(t, "Europe/Berlin")})
	lines := [][]byte{[]byte("2024-03-31 01:30:00"), []byte("2024-03-31 03:30:00"), []byte("2024-10-27 02:30:00"), []byte("2024-07-01 12:00:00")}
	want := make([]int64, len(lines))
	for i, l := range lines {
		want[i], _ = p.Parse(l)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				k := (i + g) % len(lines)
				got, ok := p.Parse(lines[k])
				assert.True(t, ok)
				assert.Equal(t, want[k], got)
			}
		})
	}
	wg.Wait()
}

// TestConcurrentCLFDates shares one Parser among goroutines reading different dates, so that its
// date cache is replaced while others read it: every result must still be exact.
func TestConcurrentCLFDates(t *testing.T) {
	p := newParser(t, Config{})
	var lines [][]byte
	for _, d := range []string{"28/Feb/2024", "29/Feb/2024", "01/Mar/2024", "31/Dec/1999", "01/Jan/2000"} {
		for _, tm := range []string{"00:00:00 +0000", "23:59:59 -0500", "12:30:15.25 +0930"} {
			lines = append(lines, []byte("h - - ["+d+":"+tm+"] \"GET /\" 200 1"))
		}
	}
	lines = append(lines, []byte("[30/Feb/2024:00:00:00 +0000]"), []byte("[29/Feb/2023:00:00:00 +0000]"))
	want := make([]int64, len(lines))
	wantOK := make([]bool, len(lines))
	for i, l := range lines {
		want[i], _, wantOK[i] = parseWith(newParser(t, Config{}), parseCLF)(l[bytes.IndexByte(l, '[')+1:])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5000 {
				k := (i*(g+1) + g) % len(lines)
				got, ok := p.Parse(lines[k])
				if ok != wantOK[k] || got != want[k] {
					t.Errorf("%q: %d %v, want %d %v", lines[k], got, ok, want[k], wantOK[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestZeroAllocs(t *testing.T) {
	ny := loadLocation(t, "America/New_York")
	for _, tc := range []struct {
		cfg  Config
		line string
	}{
		{Config{}, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326`},
		{Config{Format: "rfc3339"}, "2024-03-10T12:34:56.123456789+01:00 msg"},
		{Config{Format: "rfc3339", Location: ny}, "2024-03-10 12:34:56.123 msg"},
		{Config{Format: "layout", Layout: "%Y-%m-%d %H:%M:%S.%f %z"}, "2024-03-10 12:34:56.789 +0100 x"},
		{Config{Format: "layout", Layout: "%a, %d %B %Y %I:%M:%S %p %Z", Location: ny}, "Sun, 10 March 2024 12:34:56 PM EDT"},
		{Config{Format: "layout", Layout: "%b %e %H:%M:%S", Location: ny}, "Mar 10 12:34:56 host"},
	} {
		p := newParser(t, tc.cfg)
		line := []byte(tc.line)
		_, ok := p.Parse(line)
		require.True(t, ok, tc.line)
		assert.Zero(t, testing.AllocsPerRun(100, func() { p.Parse(line) }), "%+v", tc.cfg)
	}
}

func TestDaysFromCivil(t *testing.T) {
	// Against the time package, day by day over more than two 400-year eras around the epoch.
	for d := time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2401; d = d.AddDate(0, 0, 1) {
		if got, want := daysFromCivil(d.Year(), int(d.Month()), d.Day()), d.Unix()/86400; got != want {
			t.Fatalf("%s: %d, want %d", d.Format(time.DateOnly), got, want)
		}
	}
	assert.Equal(t, int64(-719528), daysFromCivil(0, 1, 1))
	assert.Equal(t, int64(2932896), daysFromCivil(9999, 12, 31))
}
