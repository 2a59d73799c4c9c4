package container

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func instant(t *testing.T, s string) int64 {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return at.UnixNano()
}

// parsed is what a line should parse to.
type parsed struct {
	line    string
	stream  Stream
	partial bool
	log     string
}

func checkParse(t *testing.T, cases []parsed) {
	t.Helper()
	for _, tc := range cases {
		var p Parser
		l := p.Parse([]byte(tc.line))
		assert.Equal(t, tc.stream, l.Stream, tc.line)
		assert.Equal(t, tc.partial, l.Partial, tc.line)
		assert.Equal(t, tc.log, string(l.Log), tc.line)
	}
}

func TestParseCRI(t *testing.T) {
	ts := "2026-11-29T10:00:00.123456789Z"
	checkParse(t, []parsed{
		{ts + " stdout F hello world", Stdout, false, "hello world"},
		{ts + " stderr P first half ", Stderr, true, "first half "},
		{ts + " stdout F ", Stdout, false, ""},
		{ts + " stdout F", Stdout, false, ""},
		{ts + " stdout F  two leading spaces", Stdout, false, " two leading spaces"},
		{ts + " stdout F:x:y tags after the flag", Stdout, false, "tags after the flag"},
		{"2026-11-29T11:00:00.5+01:00 stdout F offset", Stdout, false, "offset"},
	})
	var p Parser
	assert.Equal(t, instant(t, ts), p.Parse([]byte(ts+" stdout F x")).Time)
	assert.Equal(t, instant(t, "2026-11-29T10:00:00.5Z"), p.Parse([]byte("2026-11-29T11:00:00.5+01:00 stdout F x")).Time)
}

func TestParseDocker(t *testing.T) {
	ts := "2026-11-29T10:00:00.123456789Z"
	cases := []parsed{
		{`{"log":"hello\n","stream":"stdout","time":"` + ts + `"}`, Stdout, false, "hello"},
		{`{"log":"no newline: a piece","stream":"stderr","time":"` + ts + `"}`, Stderr, true, "no newline: a piece"},
		{`{"stream":"stdout","time":"` + ts + `","log":"order\n"}`, Stdout, false, "order"},
		{`{"log":"tab\there \"quoted\" back\\slash \/ \u00e9 \ud83d\ude00\n","stream":"stdout","time":"` + ts + `"}`,
			Stdout, false, "tab\there \"quoted\" back\\slash / é 😀"},
		{`{"log":"lone \ud83d half\n","stream":"stdout","time":"` + ts + `"}`, Stdout, false, "lone \uFFFD half"},
		{`{"log":"attrs\n","stream":"stdout","attrs":{"tag":"a,b}","n":[1,{"x":2}]},"time":"` + ts + `","n":12}`,
			Stdout, false, "attrs"},
		{`{ "log" : "spaced\n" , "stream" : "stdout" , "time" : "` + ts + `" } `, Stdout, false, "spaced"},
	}
	checkParse(t, cases)
	for _, tc := range cases {
		var p Parser
		assert.Equal(t, instant(t, ts), p.Parse([]byte(tc.line)).Time, tc.line)
	}
}

// Lines in neither format come back whole, unparsed: the receiver passes them on as they are.
func TestParseNeither(t *testing.T) {
	ts := "2026-11-29T10:00:00Z"
	for _, line := range []string{
		"",
		"plain text",
		ts,
		ts + " stdin F wrong stream",
		ts + " stdout X wrong flag",
		ts + " stdout",
		"2026-11-29T10:00:00 stdout F no offset",
		"2026-02-31T10:00:00Z stdout F no such day",
		`{"log":"no time\n","stream":"stdout"}`,
		`{"log":"bad time\n","stream":"stdout","time":"yesterday"}`,
		`{"log":"bad stream\n","stream":"stdin","time":"` + ts + `"}`,
		`{"log":"x\n","stream":"stdout","time":"` + ts + `"} trailing`,
		`{"log":"bad escape \q","stream":"stdout","time":"` + ts + `"}`,
		`{"log":"cut`,
		"{\"log\":\"raw control \x15\",\"stream\":\"stdout\",\"time\":\"" + ts + "\"}",
		`{"log":1,"stream":"stdout","time":"` + ts + `"}`,
		`{}`,
		`{`,
	} {
		var p Parser
		l := p.Parse([]byte(line))
		assert.Equal(t, StreamNone, l.Stream, line)
		assert.Equal(t, line, string(l.Log), line)
	}
}

// FuzzParseDocker checks the JSON reader against encoding/json: a line both accept decodes to
// the same log, stream and time, and a line of the three members Docker writes, with a valid
// stream and time, is never refused.
func FuzzParseDocker(f *testing.F) {
	f.Add(`{"log":"hello\n","stream":"stdout","time":"2026-11-29T10:00:00.1Z"}`)
	f.Add(`{"log":"\u00e9\ud83d\ude00 \"q\"","stream":"stderr","time":"2026-11-29T10:00:00+01:00","attrs":{"a":[1,"}"]}}`)
	f.Fuzz(func(t *testing.T, line string) {
		var p Parser
		l := p.Parse([]byte(line))
		var want struct {
			Log    *string `json:"log"`
			Stream string  `json:"stream"`
			Time   string  `json:"time"`
		}
		var members map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &want) != nil || json.Unmarshal([]byte(line), &members) != nil || want.Log == nil {
			return
		}
		at, err := time.Parse(time.RFC3339Nano, want.Time)
		canonical := len(members) == 3 && err == nil && (want.Stream == "stdout" || want.Stream == "stderr") &&
			strings.Count(line, `"`) == 12+strings.Count(line, `\"`)
		if l.Stream == StreamNone {
			if canonical {
				t.Fatalf("Parse refused the Docker line %q", line)
			}
			return
		}
		log := *want.Log
		if partial := log == "" || log[len(log)-1] != '\n'; partial != l.Partial {
			t.Fatalf("%q: partial %v", line, l.Partial)
		} else if !partial {
			log = log[:len(log)-1]
		}
		if asJSONDecodes(l.Log) != log || l.Stream.String() != want.Stream || (err == nil && at.UnixNano() != l.Time) {
			t.Fatalf("%q: got log %q stream %v time %d, want %q %q %v", line, l.Log, l.Stream, l.Time, log, want.Stream, at)
		}
	})
}

// asJSONDecodes replaces each byte of invalid UTF-8 with U+FFFD, as encoding/json does; Parse
// keeps such bytes as they are (Docker escapes them, and the receiver's encoding decides).
func asJSONDecodes(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

func TestPodFromPath(t *testing.T) {
	pod, ok := PodFromPath("/var/log/pods/shop_cart-7d9f_0b7c-11ef/server/3.log")
	require.True(t, ok)
	assert.Equal(t, Pod{Namespace: "shop", Name: "cart-7d9f", UID: "0b7c-11ef", Container: "server", Restart: 3}, pod)
	for _, rotated := range []string{"3.log.20261129-101500", "3.log.20261129-101500.gz"} {
		p, ok := PodFromPath("/var/log/pods/shop_cart-7d9f_0b7c-11ef/server/" + rotated)
		assert.True(t, ok, rotated)
		assert.Equal(t, pod, p, rotated)
	}
	for _, path := range []string{
		"/var/log/app.log",
		"/var/log/pods/shop_cart/server/0.log",
		"/var/log/pods/shop_cart_uid_extra/server/0.log",
		"/var/log/pods/shop_cart_uid/server/x.log",
		"/var/log/pods/shop_cart_uid/server/0.logfile",
		"/var/lib/docker/containers/abc/abc-json.log",
	} {
		_, ok := PodFromPath(path)
		assert.False(t, ok, path)
	}
}

func BenchmarkParse(b *testing.B) {
	msg := "GET /api/v1/cart/items?id=42 200 1234 0.012 \"Mozilla/5.0 (X11; Linux x86_64)\""
	for name, line := range map[string]string{
		"cri":    "2026-11-29T10:00:00.123456789Z stdout F " + msg,
		"docker": `{"log":"` + strings.ReplaceAll(msg, `"`, `\"`) + `\n","stream":"stdout","time":"2026-11-29T10:00:00.123456789Z"}`,
	} {
		b.Run(name, func(b *testing.B) {
			var p Parser
			in := []byte(line)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if p.Parse(in).Stream != Stdout {
					b.Fatal("not parsed")
				}
			}
		})
	}
}
