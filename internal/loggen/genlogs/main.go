// Command genlogs writes the synthetic logs of package loggen to files, for samples and benchmarks.
//
//	go run ./internal/loggen/genlogs -kind clf -lines 700000 -offset +0900 -seed 3 -o /tmp/a.log
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
)

func main() {
	kind := flag.String("kind", "clf", "clf, logtail or java")
	n := flag.Int("lines", 10000, "lines (clf) or entries (logtail, java)")
	offset := flag.String("offset", "+0000", "clf: UTC offset the timestamps are written in, ±hhmm")
	zone := flag.String("zone", "UTC", "java: IANA time zone of the offset-less timestamps")
	start := flag.String("start", "2026-11-28T00:00:00Z", "first instant, RFC 3339")
	span := flag.Duration("span", 24*time.Hour, "time range covered")
	malformed := flag.Int("malformed-every", 0, "clf: about one line in n gets a garbled timestamp")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "-", "output file, - for stdout")
	flag.Parse()
	if err := run(*kind, *n, *offset, *zone, *start, *span, *malformed, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genlogs:", err)
		os.Exit(1)
	}
}

func run(kind string, n int, offset, zone, start string, span time.Duration, malformed int, seed uint64, out string) (err error) {
	t0, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return fmt.Errorf("-start: %w", err)
	}
	w := os.Stdout
	if out != "-" {
		if w, err = os.Create(out); err != nil {
			return err
		}
		defer func() {
			// The file was written: a failed Close may have lost its end.
			if cerr := w.Close(); err == nil {
				err = cerr
			}
		}()
	}
	switch kind {
	case "clf":
		off, err := parseOffset(offset)
		if err != nil {
			return err
		}
		return loggen.WriteCLF(w, loggen.CLF{Start: t0, Span: span, Lines: n, Offset: off, MalformedEvery: malformed, Seed: seed})
	case "logtail":
		return loggen.WriteLogtail(w, n)
	case "java":
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return fmt.Errorf("-zone: %w", err)
		}
		return loggen.WriteJavaApp(w, loggen.JavaApp{Start: t0, Span: span, Entries: n, Zone: loc, Seed: seed})
	}
	return fmt.Errorf("-kind: unknown kind %q (want clf, logtail or java)", kind)
}

func parseOffset(s string) (int, error) {
	if len(s) != 5 || (s[0] != '+' && s[0] != '-') {
		return 0, fmt.Errorf("-offset: want ±hhmm, got %q", s)
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[3:5])
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("-offset: want ±hhmm, got %q", s)
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}
