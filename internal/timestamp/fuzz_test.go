package timestamp

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The fuzz targets check our parsers against time.Parse with the equivalent Go layout, both
// ways: where time.Parse reads the whole input, we read it to the same instant; where we read a
// prefix (we ignore what follows the timestamp), time.Parse reads that prefix to the same
// instant. Known, intended differences are excused narrowly:
//   - time.Parse takes offsets up to 24:00 and minutes or seconds of 60; we stop at 18:00 and 59
//     (goLaxOffset);
//   - time.Parse takes a one-digit hour in layouts that use "15", as CLF and RFC 3339 do not, and
//     a run of spaces for RFC 3339's ' ' between date and time;
//   - time.Parse takes hour 0 with "3" (12-hour clock) and a signed "+5" for "06";
//   - time.Parse matches "PM" case-sensitively, we do not (the reference gets upper case);
//   - instants outside int64 nanoseconds, where UnixNano is undefined;
//   - %Z: time.Parse resolves zone names against the location, we read UTC/GMT only.

var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
	// An offset with a minute or second field of 60, which time.Parse takes.
	offset60 = regexp.MustCompile(`[+-]\d\d(:?\d\d)?:?60`)
)

func inNanoRange(t time.Time) bool { return !t.Before(minTime) && !t.After(maxTime) }

func goLaxOffset(t time.Time, s string) bool {
	_, off := t.Zone()
	return off > maxOffset || off < -maxOffset || offset60.MatchString(s)
}

// parseGo returns a reference that tries the Go layouts in order, as filelog tries %z's forms.
func parseGo(layouts ...string) func(string) (time.Time, bool) {
	return func(s string) (time.Time, bool) {
		for _, l := range layouts {
			if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
}

// differential runs both directions of the check. ours parses and returns the length read; ref
// is time.Parse with the equivalent layouts.
func differential(t *testing.T, s string, ref func(string) (time.Time, bool), ours func([]byte) (int64, int, bool), excused func(time.Time) bool) {
	got, n, ok := ours([]byte(s))
	if ok {
		want, goOK := ref(s[:n])
		if !goOK {
			t.Fatalf("%q: ours %s, time.Parse rejects %q", s, time.Unix(0, got).UTC(), s[:n])
		}
		if got != want.UnixNano() {
			t.Fatalf("%q: ours %s, time.Parse %s", s, time.Unix(0, got).UTC(), want.UTC())
		}
	}
	if want, goOK := ref(s); goOK && inNanoRange(want) && !excused(want) {
		if !ok || got != want.UnixNano() {
			t.Fatalf("%q: ours %v %s, time.Parse %s", s, ok, time.Unix(0, got).UTC(), want.UTC())
		}
	}
}

// parseWith runs one of our parsers and converts like Parse, returning the length read too.
func parseWith(p *Parser, parse func([]byte, *civil) (int, bool)) func([]byte) (int64, int, bool) {
	return func(b []byte) (int64, int, bool) {
		var c civil
		n, ok := parse(b, &c)
		if !ok {
			return 0, 0, false
		}
		v, ok := p.instant(&c)
		return v, n, ok
	}
}

const clfGo = "02/Jan/2006:15:04:05 -0700"

func FuzzCLF(f *testing.F) {
	for _, s := range []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
		`[29/Feb/2024:23:59:59 +0900]`, `[29/Feb/2023:23:59:59 +0900]`, `[10/oct/2000:13:55:36.123 -0700]`,
		`[10/Oct/2000:13:55:36 +2400]`, `[10/Oct/2000:1:55:36 -0700]`, `[11/Apr/2262:23:47:16 +0000]`,
		`[10/Oct/2000:13:55:36,999999999999 -0000]`, `[31/Dec/2016:23:59:60 +0000]`, `[`, ``,
	} {
		f.Add(s)
	}
	p, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := p.Parse([]byte(s))
		i := strings.IndexByte(s, '[')
		if i < 0 {
			if ok {
				t.Fatalf("%q: parsed without '['", s)
			}
			return
		}
		text := s[i+1:]
		ours := parseWith(p, parseCLF)
		if g, _, o := ours([]byte(text)); g != got || o != ok {
			t.Fatalf("%q: Parse and parseCLF disagree", s)
		}
		differential(t, text, parseGo(clfGo), ours, func(want time.Time) bool {
			return goLaxOffset(want, text) || (len(text) > 13 && text[13] == ':') // one-digit hour
		})
	})
}

var rfc3339Go = func() []string {
	var ls []string
	for _, sep := range []string{"T", " "} {
		for _, zone := range []string{"Z07:00", "Z0700", "Z07", " -0700", " -07:00", ""} {
			ls = append(ls, "2006-01-02"+sep+"15:04:05"+zone)
		}
	}
	return ls
}()

func FuzzRFC3339(f *testing.F) {
	for _, s := range []string{
		"2024-03-10T12:34:56Z", "2024-03-10 12:34:56.123456789+01:00 x", "2024-03-10T12:34:56,5-0700",
		"2024-03-10T12:34:56+09", "2024-03-10 12:34:56 +0100", "2024-03-10 12:34:56 -07:00 INFO",
		"2024-03-10 12:34:56 +01005", "2024-03-10T12:34:56", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
		"2024-03-10T12:34:56+24:00", "2024-03-10T12:34:56+01:60", "2024-03-10T1:34:56Z", "\t2024-03-10T12:34:56Z",
		"0000-01-01T00:00:00Z", "2024-03-10T12:34:56.1234567891+01", "",
	} {
		f.Add(s)
	}
	p, err := New(Config{Format: "rfc3339"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := p.Parse([]byte(s))
		s = string(skipBlanks([]byte(s)))
		ours := parseWith(p, parseRFC3339)
		if g, _, o := ours([]byte(s)); g != got || o != ok {
			t.Fatalf("%q: Parse and parseRFC3339 disagree", s)
		}
		differential(t, s, parseGo(rfc3339Go...), ours, func(want time.Time) bool {
			// A one-digit hour, or a run of spaces for the ' ' between date and time.
			return goLaxOffset(want, s) || (len(s) > 12 && (s[12] == ':' || s[11] == ' '))
		})
	})
}

// fuzzNow is the fixed now of the year-less layout: months up to July are this year.
var fuzzNow = time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)

type layoutCase struct {
	layout string
	goLays []string // nil: no time.Parse equivalent, only checked not to panic
	upper  bool     // time.Parse needs AM/PM in upper case
	noYear bool     // time.Parse gives year 0, we guess
	// lax reports inputs time.Parse takes on purpose and we do not.
	lax func(s string) bool
}

var (
	signed     = func(s string) bool { return strings.ContainsAny(s, "+-") }
	zeroHour12 = func(fieldsBefore int) func(string) bool {
		re := regexp.MustCompile(fmt.Sprintf(`^(\S+ +){%d}0{1,2}:`, fieldsBefore))
		return re.MatchString
	}
	either = func(a, b func(string) bool) func(string) bool {
		return func(s string) bool { return a(s) || b(s) }
	}
)

var layoutCases = []layoutCase{
	{layout: "%Y-%m-%d %H:%M:%S.%f", goLays: []string{"2006-1-2 15:4:5.999999999"}},
	{layout: "%d/%b/%Y:%H:%M:%S %z", goLays: []string{"2/Jan/2006:15:4:5 Z0700", "2/Jan/2006:15:4:5 Z07:00", "2/Jan/2006:15:4:5 Z07"}},
	{layout: "%b %e %H:%M:%S", goLays: []string{"Jan _2 15:4:5"}, noYear: true},
	{layout: "%a %b %d %H:%M:%S %Y", goLays: []string{"Mon Jan 2 15:4:5 2006"}},
	{layout: "%m/%d/%y %I:%M:%S %p", goLays: []string{"1/2/06 3:4:5 PM"}, upper: true, lax: either(signed, zeroHour12(1))},
	{layout: "%Y%m%d%H%M%S", goLays: []string{"2006010215045"}},
	{layout: "%d.%m.%Y %H:%M:%S,%L", goLays: []string{"2.1.2006 15:4:5,999"}},
	{layout: "%Y-%m-%dT%H:%M:%S%j", goLays: []string{"2006-1-2T15:4:5-07:00"}},
	{layout: "%F %T %i", goLays: []string{"2006-1-2 15:4:5 -07"}},
	{layout: "%F %T %k", goLays: []string{"2006-1-2 15:4:5 -07:00:00"}},
	{layout: "%F %T %w", goLays: []string{"2006-1-2 15:4:5 -070000"}},
	{layout: "%A, %d %B %Y %l:%M %P", goLays: []string{"Monday, 2 January 2006 3:4 PM"}, upper: true, lax: zeroHour12(4)},
	{layout: "%c", goLays: []string{"Mon Jan _2 15:4:5 2006"}},
	{layout: "%D %R", goLays: []string{"1/2/2006 15:4", "1/2/06 15:4"}, lax: signed},
	{layout: "%Y-%m-%d %H:%M:%S %Z"},
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 0x20
		}
	}
	return string(b)
}

func FuzzLayout(f *testing.F) {
	// One seed per case, in order, and a few more.
	for i, s := range []string{
		"2024-03-10 12:34:56.789012 INFO", "10/Oct/2000:13:55:36 -0700", "Oct  5 13:55:36 host",
		"Tue Oct 10 13:55:36 2000", "03/10/24 01:55:36 pm", "20240310123456", "10.03.2024 12:34:56,789",
		"2024-03-10T12:34:56+05:30", "2024-03-10 12:34:56 -05", "2024-03-10 12:34:56 -05:00:30",
		"2024-03-10 12:34:56 +053030", "Tuesday, 10 October 2000 1:55 am", "Thu Feb  1 13:55:36 2024",
		"03/10/2024 12:34", "2024-03-10 12:34:56 CET",
	} {
		f.Add(uint8(i), s)
	}
	f.Add(uint8(2), "Feb 29 00:00:00")
	f.Add(uint8(4), "03/10/24 00:55:36 AM")
	f.Add(uint8(1), "10/Oct/2000:13:55:36 +24:00")
	f.Add(uint8(13), "3/1/-5 12:34")
	parsers := make([]*Parser, len(layoutCases))
	for i, lc := range layoutCases {
		p, err := New(Config{Format: "layout", Layout: lc.layout, Now: func() time.Time { return fuzzNow }})
		if err != nil {
			f.Fatal(err)
		}
		parsers[i] = p
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		lc, p := layoutCases[int(which)%len(layoutCases)], parsers[int(which)%len(layoutCases)]
		got, ok := p.Parse([]byte(s))
		if lc.goLays == nil {
			return
		}
		s = string(skipBlanks([]byte(s)))
		ours := parseWith(p, p.parseLayout)
		if g, _, o := ours([]byte(s)); g != got || o != ok {
			t.Fatalf("%q: Parse and parseLayout disagree", s)
		}
		if lc.upper {
			s = asciiUpper(s)
		}
		ref := parseGo(lc.goLays...)
		if lc.noYear {
			ref = func(s string) (time.Time, bool) {
				t, ok := parseGo(lc.goLays...)(s)
				// time.Parse leaves year 0; ours takes the year the rule in guessYear gives.
				year := fuzzNow.Year()
				if int(t.Month()) > int(fuzzNow.Month())+1 {
					year--
				}
				return t.AddDate(year, 0, 0), ok
			}
		}
		differential(t, s, ref, ours, func(want time.Time) bool {
			return goLaxOffset(want, s) || (lc.lax != nil && lc.lax(s))
		})
	})
}
