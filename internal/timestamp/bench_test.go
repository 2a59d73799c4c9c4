package timestamp

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkParse compares Parse (impl=ours) with time.Parse on the same text (impl=stdlib); the
// stdlib side finds the timestamp the same way and converts to Unix nanoseconds too.
func BenchmarkParse(b *testing.B) {
	ny := loadLocation(b, "America/New_York")
	for _, bc := range []struct {
		name   string
		cfg    Config
		line   string
		stdlib func(line string) (time.Time, error)
	}{
		{"clf", Config{}, `192.0.2.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "-" "curl/8.5.0"`,
			func(line string) (time.Time, error) {
				i := strings.IndexByte(line, '[') + 1
				return time.Parse(clfGo, line[i:i+len(clfGo)])
			}},
		{"rfc3339", Config{Format: "rfc3339"}, `2024-03-10T12:34:56Z level=info msg="request done"`,
			func(line string) (time.Time, error) { return time.Parse(time.RFC3339, line[:20]) }},
		{"rfc3339nano", Config{Format: "rfc3339"}, `2024-03-10T12:34:56.123456789+01:00 level=info msg="request done"`,
			func(line string) (time.Time, error) { return time.Parse(time.RFC3339Nano, line[:35]) }},
		{"layout", Config{Format: "layout", Layout: "%Y-%m-%d %H:%M:%S.%f"}, `2024-03-10 12:34:56.789012 INFO [main] request done`,
			func(line string) (time.Time, error) { return time.Parse("2006-01-02 15:04:05.000000", line[:26]) }},
		// Year-less, in a zone: the price of Now and of a zone lookup. time.Parse leaves year 0.
		{"layout_syslog", Config{Format: "layout", Layout: "%b %e %H:%M:%S", Location: ny}, `Mar 10 12:34:56 host sshd[4242]: Accepted publickey`,
			func(line string) (time.Time, error) { return time.ParseInLocation(time.Stamp, line[:15], ny) }},
		{"rfc3339_regex", Config{Format: "rfc3339", Regex: `\bts=(\S+)`}, `level=info ts=2024-03-10T12:34:56Z msg="request done"`,
			func(line string) (time.Time, error) {
				i := strings.Index(line, "ts=") + 3
				return time.Parse(time.RFC3339, line[i:i+20])
			}},
	} {
		p := newParser(b, bc.cfg)
		line := []byte(bc.line)
		want, ok := p.Parse(line)
		if !ok {
			b.Fatalf("%s: %q does not parse", bc.name, bc.line)
		}
		b.Run(bc.name+"/impl=ours", func(b *testing.B) {
			b.ReportAllocs()
			var sum int64
			for b.Loop() {
				v, _ := p.Parse(line)
				sum += v
			}
			_ = sum
		})
		b.Run(bc.name+"/impl=stdlib", func(b *testing.B) {
			b.ReportAllocs()
			t, err := bc.stdlib(bc.line)
			if err != nil || (bc.name != "layout_syslog" && t.UnixNano() != want) {
				b.Fatalf("stdlib: %v %v, want %v", t, err, time.Unix(0, want))
			}
			var sum int64
			for b.Loop() {
				t, _ := bc.stdlib(bc.line)
				sum += t.UnixNano()
			}
			_ = sum
		})
	}
}
