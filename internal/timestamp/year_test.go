package timestamp

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a moving clock: Now gives what advance set, and the timers made by AfterFunc
// fire, on the goroutine that calls advance, once it has moved past them.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	reads  int
	timers []*fakeTimer
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Time
	f     func()
	armed bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f, armed: true}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.at, t.armed = t.c.now.Add(d), true
	return was
}

// advance moves the clock by d and fires the timers due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if t.armed && !t.at.After(c.now) {
			t.armed = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

func (c *fakeClock) state() (reads, armed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.timers {
		if t.armed {
			armed++
		}
	}
	return c.reads, armed
}

func newFakeClockParser(t *testing.T, start time.Time, cfg Config) (*Parser, *fakeClock) {
	t.Helper()
	clk := &fakeClock{now: start}
	cfg.Now = clk.Now
	p := newParser(t, cfg)
	p.afterFunc = clk.AfterFunc
	return p, clk
}

// TestLayoutYearAfterQuietNewYear reads a quiet syslog-style log on Dec 31 and then on Jan 2:
// the Jan 2 lines belong to the new year from the first one, however few lines came between.
// Before, the clock was read once every 256 parses, and up to 255 January lines were stamped a
// year in the past.
func TestLayoutYearAfterQuietNewYear(t *testing.T) {
	p, clk := newFakeClockParser(t, time.Date(2024, 12, 31, 23, 0, 0, 0, time.UTC),
		Config{Format: "layout", Layout: "%b %e %H:%M:%S"})
	runCases(t, p, []parseCase{
		{"Dec 31 22:59:00", "2024-12-31T22:59:00Z"},
		{"Dec 31 22:59:30", "2024-12-31T22:59:30Z"},
	})
	clk.advance(35 * time.Hour) // Jan 2, 10:00
	runCases(t, p, []parseCase{
		{"Jan  2 09:59:58", "2025-01-02T09:59:58Z"},
		{"Dec 31 23:59:59", "2024-12-31T23:59:59Z"}, // a late December line stays in 2024
		{"Jan  2 09:59:59", "2025-01-02T09:59:59Z"},
	})
}

// TestLayoutYearClockReads checks the clock is read once per second of parsing at most, and
// that a parser left alone keeps no timer armed.
func TestLayoutYearClockReads(t *testing.T) {
	p, clk := newFakeClockParser(t, time.Date(2025, 3, 31, 23, 59, 58, 0, time.UTC),
		Config{Format: "layout", Layout: "%b %e %H:%M:%S"})
	line := []byte("Mar 31 23:59:58 host app: hello")
	for range 1000 {
		_, ok := p.Parse(line)
		require.True(t, ok)
	}
	reads, armed := clk.state()
	assert.Equal(t, 1, reads, "clock reads in the first second")
	assert.Equal(t, 1, armed, "timers armed")

	clk.advance(500 * time.Millisecond) // not a second yet
	p.Parse(line)
	reads, _ = clk.state()
	assert.Equal(t, 1, reads, "clock reads before a second passed")

	clk.advance(500 * time.Millisecond)
	_, armed = clk.state()
	assert.Equal(t, 0, armed, "the timer fired: nothing armed until the next parse")
	clk.advance(time.Hour) // idle: no parse, no read, nothing re-armed
	reads, armed = clk.state()
	assert.Equal(t, 1, reads, "clock reads while idle")
	assert.Equal(t, 0, armed, "timers armed while idle")

	// April 1, 00:59:59 now: a March line is of this year, and so is an April one.
	for range 1000 {
		p.Parse(line)
	}
	reads, armed = clk.state()
	assert.Equal(t, 2, reads, "clock reads after the pause")
	assert.Equal(t, 1, armed, "timers armed after the pause")
	runCases(t, p, []parseCase{{"Apr  1 00:59:59", "2025-04-01T00:59:59Z"}})
	assert.Zero(t, testing.AllocsPerRun(100, func() { p.Parse(line) }))
}

// TestLayoutYearConcurrent parses from several goroutines while the clock moves over New Year,
// for the race detector; every line parsed after the move is of the new year.
func TestLayoutYearConcurrent(t *testing.T) {
	p, clk := newFakeClockParser(t, time.Date(2024, 12, 31, 23, 59, 0, 0, time.UTC),
		Config{Format: "layout", Layout: "%b %e %H:%M:%S"})
	jan := []byte("Jan  1 00:00:30")
	want := utc("2025-01-01T00:00:30Z")
	p.Parse([]byte("Dec 31 23:59:00"))
	clk.advance(time.Minute)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				got, ok := p.Parse(jan)
				if !ok || got != want {
					t.Errorf("Parse(%q) = %v, %v; want %v", jan, time.Unix(0, got).UTC(), ok, time.Unix(0, want).UTC())
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestLayoutYearRealTimer checks the default timer, time.AfterFunc, is armed and fires.
func TestLayoutYearRealTimer(t *testing.T) {
	p := newParser(t, Config{Format: "layout", Layout: "%b %e %H:%M:%S"})
	_, ok := p.Parse([]byte("Jan  1 00:00:00"))
	require.True(t, ok)
	p.clockMu.Lock()
	tk := p.tick
	p.clockMu.Unlock()
	require.IsType(t, (*time.Timer)(nil), tk)
	assert.True(t, tk.(*time.Timer).Stop(), "the timer is armed") // and stopped: nothing left to fire
}
