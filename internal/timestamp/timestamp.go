// Package timestamp reads an entry's timestamp into a UTC instant (Unix nanoseconds) without
// time.Parse: each format has a byte parser, and the date becomes a day count with Howard
// Hinnant's days-from-civil arithmetic.
//
// Where the timestamp is:
//   - With Config.Regex, it is the text of the regexp's first capture group (searched anywhere
//     in the entry); otherwise
//   - for "clf", the text after the entry's first '[';
//   - for "rfc3339" and "layout", the entry start.
//
// For "rfc3339" and "layout", leading blanks (spaces and tabs) are skipped first. Parsing stops
// where the format ends; whatever follows is not looked at.
//
// Formats:
//   - "clf" (default): dd/Mon/yyyy:HH:MM:SS ±hhmm, as Apache and nginx write %t. A fraction after
//     the seconds (".123" or ",123") and a run of spaces before the offset are read, as
//     time.Parse reads them.
//   - "rfc3339" (alias "iso8601"): yyyy-mm-dd, 'T' or ' ', HH:MM:SS, an optional fraction ('.' or
//     ','; digits past nanoseconds are dropped), then an optional offset right after: Z, ±hh:mm,
//     ±hhmm or ±hh. A numeric ±hhmm or ±hh:mm after spaces is read as the offset too, as many
//     loggers write it. Anything else means there is no offset. An offset-like text right after
//     the time that is not a valid offset ("+1", "+01:3") fails the parse rather than being
//     silently ignored.
//   - "layout": a strptime-style layout with the directives of filelog's layout_type strptime;
//     see Config.Layout.
//
// Common rules:
//   - Invalid dates and times are failures, never normalised: 31 Feb, 29 Feb outside leap years,
//     month 13, hour 24, minute or second 60. A leap second (:60) fails too, as in time.Parse:
//     Unix time has no place for it.
//   - Offsets reach at most ±18:00 with minutes and seconds below 60; beyond is a failure.
//   - Month, weekday and AM/PM names are matched ASCII case-insensitively ("Oct", "OCT", "oct"),
//     as time.Parse matches names; this costs nothing and loses nothing, since no name is another
//     name in a different case.
//   - A timestamp without an offset is wall time in Config.Location; gaps and overlaps at
//     daylight-saving changes resolve as time.Date resolves them.
//   - Instants outside the int64 nanosecond range (before 1677-09-21 or after 2262-04-11 UTC)
//     fail.
//
// A Parser is safe for concurrent use. Parse allocates nothing in steady state (a small cache is
// replaced when Location's offset or Now's month changes), except with Config.Regex, where the
// regexp package allocates the submatch indices. For CLF it remembers the last date it read, so
// that the next lines of the same day parse only their time; goroutines that share a Parser over
// logs of different dates get the same results, only a little slower.
package timestamp

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// Config chooses the format and where the timestamp is.
type Config struct {
	// Format is "clf" (the default when empty), "rfc3339" (alias "iso8601") or "layout".
	Format string
	// Layout is the strptime-style layout for Format "layout", e.g. "%Y-%m-%d %H:%M:%S.%f",
	// "%d/%b/%Y:%H:%M:%S %z" or "%b %e %H:%M:%S". Directives (filelog's strptime set):
	//
	//	%Y  year, 4 digits                %y  year, 2 digits: 69-99 → 19xx, 00-68 → 20xx
	//	%m  month, 1-2 digits             %q  month, 1-2 digits      %o  month, optional space + 1-2 digits
	//	%b, %h  month name, 3 letters     %B  full month name
	//	%d  day, 1-2 digits               %g  day, 1-2 digits        %e  day, optional space + 1-2 digits
	//	%a  weekday, 3 letters            %A  full weekday name (both read and ignored, as time.Parse does)
	//	%H  hour 0-23, 1-2 digits         %I, %l  hour 1-12, 1-2 digits    %p, %P  AM or PM
	//	%M  minute, 1-2 digits            %S  second, 1-2 digits (a fraction after it is read, as time.Parse does)
	//	%L, %f, %s  fraction of a second, any number of digits; must follow '.' or ','; optional
	//	%z  Z, ±hhmm, ±hh:mm or ±hh       %i  ±hh     %j  ±hh:mm     %k  ±hh:mm:ss     %w  ±hhmmss
	//	%Z  zone name: UTC, GMT, UT or Z mean UTC; other names (2-5 letters) are skipped: Location
	//	    applies, or an offset read before (%z (%Z))
	//	%D, %x  %m/%d/%y (or a 4-digit year)     %F  %Y-%m-%d     %T, %X  %H:%M:%S     %R  %H:%M
	//	%r  %I:%M:%S %p     %c  %a %b %e %H:%M:%S %Y     %n  newline     %t  tab     %%  '%'
	//
	// Note that, as in filelog, %s is nanoseconds (not epoch seconds) and %j, %k, %w are offsets
	// (not day of year, hour, weekday). Other bytes match themselves; a run of spaces matches a
	// run of one or more spaces, as in time.Parse. Numbers of "1-2 digits" take two digits when
	// two are there. A layout needs a month and a day; one without a year (%Y, %y, %D, %x, %F,
	// %c) takes the year of Now in Location, or the year before when the month is more than one
	// month after Now's (a December line read in January).
	Layout string
	// Location is where timestamps without an offset are wall time; nil means UTC.
	Location *time.Location
	// Regex, when set, finds the timestamp: the text of its first capture group, searched in the
	// whole entry, is parsed from its start. Empty means the format's default place.
	Regex string
	// Now gives the current time for layouts without a year; nil means time.Now. It is called at
	// the first parse and then once every 256, as the year it gives changes only with its month.
	Now func() time.Time
}

type format uint8

const (
	formatCLF format = iota
	formatRFC3339
	formatLayout
)

// Parser reads timestamps in one configured format.
type Parser struct {
	format  format
	ops     []op // compiled layout, for formatLayout
	re      *regexp.Regexp
	loc     *time.Location // nil when UTC: no zone lookups
	now     func() time.Time
	zone    atomic.Pointer[zoneSpan]  // last zone period used by Location
	month   atomic.Pointer[monthSpan] // month of Now, for layouts without a year
	calls   atomic.Uint32             // year-less parses, to read the clock now and then
	clfDate dateCache                 // last CLF date, for formatCLF
}

// ConfigError is a bad Config: Field names the field (format, layout, regex).
type ConfigError struct {
	Field string
	Err   error
}

func (e *ConfigError) Error() string { return "timestamp: " + e.Field + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// New checks cfg and compiles its layout and regexp.
func New(cfg Config) (*Parser, error) {
	p := &Parser{loc: cfg.Location, now: cfg.Now}
	if p.loc == time.UTC {
		p.loc = nil
	}
	if p.now == nil {
		p.now = time.Now
	}
	switch strings.ToLower(cfg.Format) {
	case "", "clf":
		p.format = formatCLF
	case "rfc3339", "iso8601":
		p.format = formatRFC3339
	case "layout":
		p.format = formatLayout
	default:
		return nil, &ConfigError{"format", fmt.Errorf("unknown format %q (want clf, rfc3339, iso8601 or layout)", cfg.Format)}
	}
	if p.format == formatLayout {
		if cfg.Layout == "" {
			return nil, &ConfigError{"layout", errors.New("format layout needs a layout")}
		}
		ops, err := compileLayout(cfg.Layout)
		if err != nil {
			return nil, &ConfigError{"layout", fmt.Errorf("%q: %w", cfg.Layout, err)}
		}
		p.ops = ops
	} else if cfg.Layout != "" {
		return nil, &ConfigError{"layout", fmt.Errorf("%q is only used with format layout, not %q", cfg.Layout, cfg.Format)}
	}
	if cfg.Regex != "" {
		re, err := regexp.Compile(cfg.Regex)
		if err != nil {
			return nil, &ConfigError{"regex", err}
		}
		if re.NumSubexp() < 1 {
			return nil, &ConfigError{"regex", fmt.Errorf("%q has no capture group to hold the timestamp", cfg.Regex)}
		}
		p.re = re
	}
	return p, nil
}

// Parse returns the entry's timestamp as Unix nanoseconds; ok is false when there is none or it
// is invalid.
func (p *Parser) Parse(entry []byte) (unixNano int64, ok bool) {
	b := entry
	if p.re != nil {
		m := p.re.FindSubmatchIndex(b)
		if m == nil || m[2] < 0 {
			return 0, false
		}
		b = b[m[2]:m[3]]
	} else if p.format == formatCLF {
		i := bytes.IndexByte(b, '[')
		if i < 0 {
			return 0, false
		}
		b = b[i+1:]
	}
	var c civil
	switch p.format {
	case formatCLF:
		return p.parseCLFInstant(b)
	case formatRFC3339:
		_, ok = parseRFC3339(skipBlanks(b), &c)
	default:
		_, ok = p.parseLayout(skipBlanks(b), &c)
	}
	if !ok {
		return 0, false
	}
	return p.instant(&c)
}

func skipBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// civil is a parsed timestamp. Parsers check each field's own range; instant checks the day
// against the month and year.
type civil struct {
	year, month, day int
	hour, min, sec   int
	nsec             int
	offset           int // seconds east of UTC, when hasOffset
	hasOffset        bool
}

const (
	maxOffset = 18 * 3600
	// Bounds of the seconds whose every nanosecond fits an int64; the two seconds just outside
	// fit in part and are checked exactly.
	minSafeSec = -9223372036
	maxSafeSec = 9223372035
)

func (p *Parser) instant(c *civil) (int64, bool) {
	if !c.hasOffset && p.loc != nil {
		sec, ok := c.wallSeconds()
		if !ok {
			return 0, false
		}
		return unixNano(p.wallToUTC(sec), c.nsec)
	}
	return c.instant()
}

// wallSeconds returns the seconds since 1970-01-01 00:00:00 of c's wall time, ignoring its
// offset; false for a day the month does not have.
func (c *civil) wallSeconds() (int64, bool) {
	if c.day > daysIn(c.month, c.year) {
		return 0, false
	}
	return daysFromCivil(c.year, c.month, c.day)*86400 + int64(c.hour*3600+c.min*60+c.sec), true
}

// instant is c's instant in Unix nanoseconds, taking its offset (none: UTC).
func (c *civil) instant() (int64, bool) {
	sec, ok := c.wallSeconds()
	if !ok {
		return 0, false
	}
	if c.hasOffset {
		sec -= int64(c.offset)
	}
	return unixNano(sec, c.nsec)
}

// unixNano converts Unix seconds and nanoseconds to Unix nanoseconds; false outside int64.
func unixNano(sec int64, ns int) (int64, bool) {
	nsec := int64(ns)
	if sec >= minSafeSec && sec <= maxSafeSec {
		return sec*1e9 + nsec, true
	}
	switch {
	case sec == maxSafeSec+1 && nsec <= 854775807:
		return sec*1e9 + nsec, true
	case sec == minSafeSec-1 && nsec >= 145224192:
		return (sec+1)*1e9 + (nsec - 1e9), true
	}
	return 0, false
}

// daysFromCivil is the day number of a proleptic Gregorian date, 0 at 1970-01-01 (Howard
// Hinnant, "chrono-Compatible Low-Level Date Algorithms"): years start in March so that the leap
// day ends the year, and 400-year eras repeat exactly. Our years are never negative; one era is
// added so that year 0's January stays positive and every division is an unsigned one.
func daysFromCivil(year, month, day int) int64 {
	y := uint(year) + 400
	if month <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400 // [0, 399]
	mp := uint(month) + 9
	if mp >= 12 {
		mp -= 12 // March = 0
	}
	doy := (153*mp+2)/5 + uint(day) - 1    // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return int64(era)*146097 + int64(doe) - 719468 - 146097
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func daysIn(m, y int) int {
	if m == 2 && isLeap(y) {
		return 29
	}
	return monthDays[m]
}

// zoneSpan is a period [start, end) of Unix seconds during which Location has one offset.
type zoneSpan struct {
	start, end, offset int64
}

// wallToUTC converts wall-clock seconds in Location (counted as if UTC) to Unix seconds, exactly
// as time.Date does: look up the offset in effect at the wall time read as UTC; if the result
// falls outside that offset's period, use the offset in effect at the result. The period is
// cached, so entries away from a zone change cost no lookup.
func (p *Parser) wallToUTC(wall int64) int64 {
	if z := p.zone.Load(); z != nil && wall >= z.start && wall < z.end {
		if utc := wall - z.offset; utc >= z.start && utc < z.end {
			return utc
		}
	}
	t := time.Unix(wall, 0).In(p.loc)
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	z := &zoneSpan{start: -1 << 63, end: 1<<63 - 1, offset: int64(off)}
	if !start.IsZero() {
		z.start = start.Unix()
	}
	if !end.IsZero() {
		z.end = end.Unix()
	}
	p.zone.Store(z)
	utc := wall - z.offset
	if utc < z.start || utc >= z.end {
		_, off = time.Unix(utc, 0).In(p.loc).Zone()
		utc = wall - int64(off)
	}
	return utc
}

// Digit helpers. They index unchecked; callers check lengths first.

// num2 reads exactly two digits at b[i:], or -1.
func num2(b []byte, i int) int {
	d0, d1 := uint(b[i]-'0'), uint(b[i+1]-'0')
	if d0 > 9 || d1 > 9 {
		return -1
	}
	return int(d0*10 + d1)
}

func isDigit(c byte) bool { return c-'0' <= 9 }

// fraction reads the digits of a fraction at b[i:] and returns nanoseconds and the index after
// the digits; digits past the ninth are read and dropped, as time.Parse does.
func fraction(b []byte, i int) (nsec, end int) {
	n := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		if n < 9 {
			nsec = nsec*10 + int(b[i]-'0')
			n++
		}
	}
	for ; n < 9; n++ {
		nsec *= 10
	}
	return nsec, i
}

// hasFraction reports whether b[i:] starts with '.' or ',' and a digit.
func hasFraction(b []byte, i int) bool {
	return i+1 < len(b) && (b[i] == '.' || b[i] == ',') && isDigit(b[i+1])
}

// month3 maps a three-letter month abbreviation, any case, to 1-12, or 0.
func month3(a, b, c byte) int {
	switch uint32(a|0x20)<<16 | uint32(b|0x20)<<8 | uint32(c|0x20) {
	case 'j'<<16 | 'a'<<8 | 'n':
		return 1
	case 'f'<<16 | 'e'<<8 | 'b':
		return 2
	case 'm'<<16 | 'a'<<8 | 'r':
		return 3
	case 'a'<<16 | 'p'<<8 | 'r':
		return 4
	case 'm'<<16 | 'a'<<8 | 'y':
		return 5
	case 'j'<<16 | 'u'<<8 | 'n':
		return 6
	case 'j'<<16 | 'u'<<8 | 'l':
		return 7
	case 'a'<<16 | 'u'<<8 | 'g':
		return 8
	case 's'<<16 | 'e'<<8 | 'p':
		return 9
	case 'o'<<16 | 'c'<<8 | 't':
		return 10
	case 'n'<<16 | 'o'<<8 | 'v':
		return 11
	case 'd'<<16 | 'e'<<8 | 'c':
		return 12
	}
	return 0
}
