package timestamp

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestRoundTrip formats random instants of 1900-2200 in random offsets with time.Format and
// parses them back.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	end := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, tc := range []struct {
		name   string
		cfg    Config
		format func(time.Time) string
		unit   time.Duration // precision the format keeps
	}{
		{"clf", Config{}, func(t time.Time) string {
			return `192.0.2.1 - - ` + t.Format("[02/Jan/2006:15:04:05 -0700]") + ` "GET / HTTP/1.1" 200 5`
		}, time.Second},
		{"rfc3339", Config{Format: "rfc3339"}, func(t time.Time) string { return t.Format(time.RFC3339) + " msg" }, time.Second},
		{"rfc3339nano", Config{Format: "rfc3339"}, func(t time.Time) string { return t.Format(time.RFC3339Nano) }, 1},
		{"iso8601 space", Config{Format: "iso8601"}, func(t time.Time) string { return t.Format("2006-01-02 15:04:05.000000-0700 x") }, time.Microsecond},
		{"iso8601 spaced offset", Config{Format: "iso8601"}, func(t time.Time) string { return t.Format("2006-01-02 15:04:05,000 -07:00 x") }, time.Millisecond},
		{"layout", Config{Format: "layout", Layout: "%Y-%m-%d %H:%M:%S.%f %z"}, func(t time.Time) string {
			return t.Format("2006-01-02 15:04:05.000000 -0700 INFO")
		}, time.Microsecond},
		{"layout rfc1123z", Config{Format: "layout", Layout: "%a, %d %b %Y %H:%M:%S %z"}, func(t time.Time) string { return t.Format(time.RFC1123Z) }, time.Second},
		{"layout names", Config{Format: "layout", Layout: "%A %B %e %I:%M:%S.%L %p %Y %j"}, func(t time.Time) string {
			return t.Format("Monday January _2 03:04:05.000 PM 2006 -07:00")
		}, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newParser(t, tc.cfg)
			for range 20000 {
				inst := time.Unix(start+rng.Int64N(end-start), rng.Int64N(1e9))
				off := (rng.IntN(2*18*60+1) - 18*60) * 60 // whole minutes in ±18:00
				s := tc.format(inst.In(time.FixedZone("", off)))
				got, ok := p.Parse([]byte(s))
				if want := inst.Truncate(tc.unit).UnixNano(); !ok || got != want {
					t.Fatalf("%q: %v %s, want %s", s, ok, time.Unix(0, got).UTC(), time.Unix(0, want).UTC())
				}
			}
		})
	}
}

// TestRoundTripLocation formats random instants as wall time in zones with daylight saving and
// parses them back with Location; the answer is time.Date's, which is the instant itself except
// in the repeated hour.
func TestRoundTripLocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	start := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	end := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, name := range []string{"America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Tokyo"} {
		loc := loadLocation(t, name)
		p := newParser(t, Config{Format: "layout", Layout: "%Y-%m-%d %H:%M:%S", Location: loc})
		for range 20000 {
			w := time.Unix(start+rng.Int64N(end-start), 0).In(loc)
			s := w.Format(time.DateTime)
			want := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, loc).UnixNano()
			got, ok := p.Parse([]byte(s))
			if !ok || got != want {
				t.Fatalf("%s %q: %v %s, want %s", name, s, ok, time.Unix(0, got).In(loc), time.Unix(0, want).In(loc))
			}
		}
	}
}
