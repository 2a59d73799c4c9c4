package timestamp

import "time"

// guessYear gives a year-less timestamp the year of now in the location, or the year before
// when its month is more than one month ahead of now's (a December line read in January).
func (p *Parser) guessYear(month int) int {
	// Reading the clock costs more than parsing (tens of nanoseconds, more on some virtual
	// machines), and the answer changes only with now's month: the month is cached with its
	// bounds, and the clock is read again once a second has passed, which a timer marks. The
	// check is one atomic load, so a quiet log read on Dec 31 and then on Jan 2 sees January at
	// once, whatever the number of parses between.
	//
	// stale is loaded before month: readClock stores the new month before it clears stale, so
	// a clear seen here means the month loaded after it is the new one.
	stale := p.stale.Load()
	s := p.month.Load()
	if s == nil || stale {
		s = p.readClock()
	}
	if month > s.month+1 {
		return s.year - 1
	}
	return s.year
}

// clockEvery is how long the month read from the clock is trusted.
const clockEvery = time.Second

// readClock reads the clock, updates the cached month when it changed, and arms the timer that
// marks it stale again after clockEvery. One caller reads at a time; the others that found the
// cache stale meanwhile take what it read.
func (p *Parser) readClock() *monthSpan {
	p.clockMu.Lock()
	defer p.clockMu.Unlock()
	stale := p.stale.Load()
	s := p.month.Load()
	if s != nil && !stale {
		return s // read meanwhile by another caller
	}
	now := p.now()
	if sec := now.Unix(); s == nil || sec < s.from || sec >= s.until {
		loc := p.loc
		if loc == nil {
			loc = time.UTC
		}
		y, m, _ := now.In(loc).Date()
		first := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		s = &monthSpan{from: first.Unix(), until: first.AddDate(0, 1, 0).Unix(), year: y, month: int(m)}
		p.month.Store(s)
	}
	p.stale.Store(false) // after the month; the timer that sets it again is armed below
	// Armed only while parses go on: a parser left alone holds no pending timer beyond this one.
	if p.tick == nil {
		after := p.afterFunc
		if after == nil {
			after = realAfterFunc
		}
		p.tick = after(clockEvery, func() { p.stale.Store(true) })
	} else {
		p.tick.Reset(clockEvery)
	}
	return s
}

// timer is the part of *time.Timer readClock uses; tests give a fake one, moved by a fake clock.
type timer interface{ Reset(d time.Duration) bool }

func realAfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

// monthSpan is a month in Location and the Unix seconds [from, until) it spans.
type monthSpan struct {
	from, until int64
	year, month int
}
