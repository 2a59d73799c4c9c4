// Command receiverbench runs contrib's file_log receiver and the mergelog receiver over the
// same generated files, in one process, into counting consumers, and prints MB per CPU-second
// (user+sys from getrusage: wall time is unreliable on a shared machine), their ratio, peak RSS
// and the Go heap's high-water mark.
//
//	cd bench && go run ./cmd/receiverbench -size 200 -runs 3
//	cd bench && go run ./cmd/receiverbench -workloads operators -size 40 -runs 3 -big 0
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

type options struct {
	data      string
	sizeMB    int
	bigMB     int
	runs      int
	workloads string
	profiles  string
	timeout   time.Duration
}

func main() {
	var o options
	// -repo told where to build genlogs; the logs are now written in this process. It is still
	// accepted so that scripts passing it (scripts/bench-receiver.sh) keep working.
	flag.String("repo", "..", "ignored: the logs are generated in this process")
	flag.StringVar(&o.data, "data", "", "directory for the generated logs, kept and reused across runs (default: a temporary one, removed)")
	flag.IntVar(&o.sizeMB, "size", 200, "MB (10^6 bytes) of input per workload")
	flag.IntVar(&o.bigMB, "big", 1024, "MB of the single mergelog runs that show the heap stays flat (0: skip)")
	flag.IntVar(&o.runs, "runs", 3, "runs per receiver and workload, alternating; medians are reported")
	flag.StringVar(&o.workloads, "workloads", "logtail,clf,merge,pods", "comma-separated subset of logtail, clf, merge, pods, operators (issue 13's operator chains)")
	flag.StringVar(&o.profiles, "cpuprofile", "", "directory for a CPU profile of each receiver's first run per workload")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "limit for one run")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "receiverbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.runs < 1 || o.sizeMB < 1 {
		return errors.New("-runs and -size must be at least 1")
	}
	if o.data == "" {
		dir, err := os.MkdirTemp("", "receiverbench-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }() // a temporary directory: left behind at worst
		o.data = dir
	} else if err := os.MkdirAll(o.data, 0o755); err != nil {
		return err
	}
	if o.profiles != "" {
		if err := os.MkdirAll(o.profiles, 0o755); err != nil {
			return err
		}
	}
	gen := &generator{data: o.data}
	size := int64(o.sizeMB) * 1e6
	cases, err := benchCases(gen, size, strings.Split(o.workloads, ","))
	if err != nil {
		return err
	}
	var rows []row
	for _, c := range cases {
		rows = append(rows, c.run(o)...)
	}
	var big []bigRun
	if o.bigMB > 0 {
		if big, err = heapRuns(o, gen, size, int64(o.bigMB)*1e6); err != nil {
			return err
		}
	}
	printTable(os.Stdout, o, rows, big)
	failed := 0
	for _, r := range rows {
		failed += len(r.failures)
	}
	for _, b := range big {
		if b.small.err != nil || b.big.err != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d runs failed (see above)", failed)
	}
	return nil
}
