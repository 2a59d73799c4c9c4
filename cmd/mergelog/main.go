// Command mergelog merges log files from several servers into one stream ordered by time.
// It is a drop-in for the classic C mergelog/zmergelog, with timezone-aware ordering,
// compressed inputs detected by content, and no lost or glued lines. See usage below.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/merge"
)

const usage = `Usage: mergelog [flags] FILE...

Merges log files (Apache/NCSA Common or Combined Log Format by default) into one stream in UTC
time order, written to stdout or -o FILE. A FILE of "-" is standard input.

Inputs may be plain or compressed with gzip, bzip2, xz or zstd: the format is detected from the
first bytes, not the name, so "mergelog a.log b.log.gz c.log.1" just works. Each input should be
in time order already, as a server writes it.

Ordering: lines are ordered by the UTC instant of their timestamp, so servers in different time
zones interleave correctly (C mergelog compares local times and ignores the offset). Equal
instants keep the order of the inputs on the command line. A line without a parsable timestamp
stays right after the line before it in its own input; lines before an input's first timestamp
go out first. An input that goes back in time is still merged without loss, and counted.

Every input line appears exactly once in the output, byte for byte; a last line without a
newline gets one. A corrupt or truncated compressed input, or a file truncated while it is being
merged, is reported with how far it got, the lines before the damage are still merged, and the
other inputs go on; the exit status is then 1.

Flags:
`

type options struct {
	output    string
	format    string
	layout    string
	location  string
	timeRegex string
	lineStart string
	stats     bool
	progress  bool
}

func main() {
	opts, files, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mergelog:", err)
		os.Exit(2)
	}
	os.Exit(run(opts, files, os.Stdin, os.Stdout, os.Stderr))
}

func parseFlags(args []string, stderr io.Writer) (options, []string, error) {
	var o options
	fs := flag.NewFlagSet("mergelog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.output, "o", "", "write the merged stream to this file instead of stdout")
	fs.StringVar(&o.format, "format", "clf", "timestamp format: clf ([10/Oct/2000:13:55:36 -0700], found after the first '['),\n"+
		"rfc3339 or iso8601 (2000-10-10T13:55:36.123+02:00 at the line start), or layout (see -layout)")
	fs.StringVar(&o.layout, "layout", "", "strptime-style layout at the line start, e.g. '%Y-%m-%d %H:%M:%S'; implies -format layout")
	fs.StringVar(&o.location, "location", "UTC", "IANA time zone for timestamps without an offset, e.g. Europe/Paris")
	fs.StringVar(&o.timeRegex, "time-regex", "", "find the timestamp as the first capture group of this regexp instead")
	fs.StringVar(&o.lineStart, "line-start", "", "join multiline entries: a line that matches this regexp at its start begins an entry,\n"+
		"other lines continue it (e.g. '\\d{4}-\\d{2}-\\d{2}' for a Java log)")
	fs.BoolVar(&o.stats, "stats", false, "print per-input statistics on stderr: lines, malformed, out of order, UTC range")
	fs.BoolVar(&o.progress, "progress", false, "show progress on stderr (only when stderr is a terminal)")
	if err := fs.Parse(args); err != nil {
		return o, nil, err
	}
	if o.layout != "" {
		o.format = "layout"
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return o, nil, errors.New("no input files (use - for standard input)")
	}
	return o, fs.Args(), nil
}

// run merges the inputs and returns the exit status.
func run(o options, files []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var loc *time.Location
	if o.location != "" {
		var err error
		if loc, err = time.LoadLocation(o.location); err != nil {
			fmt.Fprintf(stderr, "mergelog: -location: %v\n", err)
			return 2
		}
	}
	cfg, err := newEntryConfig(o, loc)
	if err != nil {
		fmt.Fprintln(stderr, "mergelog:", err)
		return 2
	}

	status := 0
	sources := make([]merge.Source, 0, len(files))
	inputs := make([]*input, 0, len(files))
	defer func() {
		for _, in := range inputs {
			_ = in.Close() // read only: nothing to lose at close
		}
	}()
	stdinUsed := false
	for _, name := range files {
		if name == "-" {
			if stdinUsed {
				fmt.Fprintln(stderr, "mergelog: standard input (-) given more than once")
				return 2
			}
			stdinUsed = true
		}
		in, err := openInput(name, stdin, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "mergelog:", err)
			status = 1
			continue
		}
		inputs = append(inputs, in)
		sources = append(sources, in)
	}

	out := stdout
	if o.output != "" {
		f, err := os.Create(o.output)
		if err != nil {
			fmt.Fprintln(stderr, "mergelog:", err)
			return 2
		}
		defer func() { _ = f.Close() }() // on early returns; the Close below reports errors
		out = f
	}
	w := bufio.NewWriterSize(out, 1<<20)
	prog := newProgress(o.progress, stderr, inputs)

	m := merge.New(sources)
	failed, err := writeMerged(m, w, inputs, prog, stderr)
	if failed {
		status = 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "mergelog: writing output:", err)
		return 1
	}
	prog.done()
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "mergelog: writing output:", err)
		return 1
	}
	if o.output != "" {
		if err := out.(*os.File).Close(); err != nil {
			fmt.Fprintln(stderr, "mergelog: writing output:", err)
			return 1
		}
	}
	if o.stats {
		printStats(stderr, inputs, m)
	}
	return status
}

// writeMerged writes the merged entries to w, each with its newline, reporting failed inputs on
// stderr as it goes (failed is then true); err is a write error, which ends the merge.
func writeMerged(m *merge.Merger, w *bufio.Writer, inputs []*input, prog *progress, stderr io.Writer) (failed bool, err error) {
	// A mapped file that shrinks under its mapping (truncated by a log rotation) faults on
	// access: have the fault panic instead of killing the process, and end that input with an
	// error as if its read had failed; the merge goes on.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for {
		done, f, err := writeUntilFault(m, w, inputs, prog, stderr)
		failed = failed || f
		if done || err != nil {
			return failed, err
		}
	}
}

// writeUntilFault is writeMerged up to the end (done) or to a fault in a mapped input.
func writeUntilFault(m *merge.Merger, w *bufio.Writer, inputs []*input, prog *progress, stderr io.Writer) (done, failed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			in := faultedInput(r, inputs)
			if in == nil {
				panic(r)
			}
			// The merger asks the input for its next entry again and gets this error: the
			// state is as if the read of the faulting line had failed.
			in.abandon(errors.New("the file shrank while being read"))
		}
	}()
	for {
		entry, _, err := m.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return true, failed, nil
			}
			fmt.Fprintln(stderr, "mergelog:", err)
			failed = true
			continue
		}
		if _, err := w.Write(entry); err != nil {
			return false, failed, err
		}
		if err := w.WriteByte('\n'); err != nil {
			return false, failed, err
		}
		prog.tick()
	}
}

func printStats(w io.Writer, inputs []*input, m *merge.Merger) {
	fmt.Fprintf(w, "%-30s %12s %10s %12s  %-20s  %s\n", "input", "lines", "malformed", "out-of-order", "first (UTC)", "last (UTC)")
	for i, in := range inputs {
		s := m.Stats(i)
		first, last := "-", "-"
		if s.Timed() > 0 {
			first = time.Unix(0, s.First).UTC().Format(time.DateTime)
			last = time.Unix(0, s.Last).UTC().Format(time.DateTime)
		}
		fmt.Fprintf(w, "%-30s %12d %10d %12d  %-20s  %s\n", in.name, s.Entries, s.Untimed, s.OutOfOrder, first, last)
	}
}
