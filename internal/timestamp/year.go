package timestamp

import "time"

// guessYear gives a year-less timestamp the year of now in the location, or the year before
// when its month is more than one month ahead of now's (a December line read in January).
func (p *Parser) guessYear(month int) int {
	// Reading the clock costs more than parsing, and the answer changes only with now's month:
	// the month is cached with its bounds, and the clock read once every nowEvery calls.
	s := p.month.Load()
	if s == nil || p.calls.Add(1)%nowEvery == 0 {
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
	}
	if month > s.month+1 {
		return s.year - 1
	}
	return s.year
}

const nowEvery = 256

// monthSpan is a month in Location and the Unix seconds [from, until) it spans.
type monthSpan struct {
	from, until int64
	year, month int
}
