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
	"sync"
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
	// the first parse and then at most once a second while parses go on (a timer says when a
	// second has passed), as the year it gives changes only with its month.
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
	stale   atomic.Bool               // set by tick a second after the clock was read
	clockMu sync.Mutex                // one reader of the clock at a time; guards tick
	tick    timer                     // nil until the clock is first read
	clfDate dateCache                 // last CLF date, for formatCLF

	// afterFunc makes tick; nil means time.AfterFunc. Tests set it to drive tick from a fake
	// clock.
	afterFunc func(d time.Duration, f func()) timer
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
		if len(m) < 4 || m[2] < 0 { // nil when no match
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
