package mergelogreceiver

import "time"

// pollClock is when the next poll is due.
type pollClock struct {
	interval time.Duration
	next     time.Time
	overdue  bool // reading stops until the next poll
}

// due reports whether a poll is due at now.
func (c *pollClock) due(now time.Time) bool { return !now.Before(c.next) }

// overdueNow reports whether a poll is due before reading on: a read round that outlasts
// poll_interval must not read a file past changes only a poll sees (a copytruncate refilled
// past the read offset would be read as the old file's).
func (c *pollClock) overdueNow() bool {
	if !c.overdue && c.due(time.Now()) {
		c.overdue = true
	}
	return c.overdue
}

// earliest returns the earlier of two deadlines, where the zero time means none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
