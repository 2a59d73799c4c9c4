// Command idlebench measures the CPU that contrib's file_log receiver and the mergelog receiver
// (directory watches on, and off) take to follow many files while nothing is written to them,
// and while a trickle writes one line a second into every tenth file. Each receiver runs alone,
// one after the other, in this process, over the same files; the trickle is written by a child
// process (this command again, with -trickle) so that its CPU is not billed. CPU is user+sys of
// this process from getrusage over the measured window, in percent of one core; medians of -runs.
//
//	cd bench && go run ./cmd/idlebench -files 1000,10000 -runs 3
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/bench/internal/stats"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

type options struct {
	files   []int
	runs    int
	settle  time.Duration
	measure time.Duration
	timeout time.Duration
	profile string
}

// variant is one receiver with its keys beyond include and start_at.
type variant struct {
	name     string
	receiver rig.Receiver
	keys     map[string]any
}

var variants = []variant{
	{"file_log", rig.FileLog, nil},
	{"mergelog, watch on", rig.Mergelog, nil},
	{"mergelog, watch off", rig.Mergelog, map[string]any{"watch": map[string]any{"enabled": false}}},
}

func main() {
	var o options
	files := flag.String("files", "1000,10000", "comma-separated file counts")
	flag.IntVar(&o.runs, "runs", 3, "runs per receiver and file count; medians are reported")
	flag.DurationVar(&o.settle, "settle", 2*time.Second, "wait after every file's first line arrived, before measuring")
	flag.DurationVar(&o.measure, "measure", 5*time.Second, "length of each measured window (idle, then trickle)")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "limit for the first lines of every file to arrive")
	flag.StringVar(&o.profile, "cpuprofile", "", "directory for CPU profiles of each variant's first run (idle and trickle windows)")
	trickle := flag.String("trickle", "", "internal: write the trickle into the files of this directory")
	flag.Parse()
	if *trickle != "" {
		// It writes until it is killed: it returns only with an error.
		fmt.Fprintln(os.Stderr, "idlebench trickle:", writeTrickle(*trickle))
		os.Exit(1)
	}
	for _, f := range strings.Split(*files, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			fmt.Fprintf(os.Stderr, "idlebench: -files: %q is not a count of at least 10\n", f)
			os.Exit(2)
		}
		o.files = append(o.files, n)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "idlebench:", err)
		os.Exit(1)
	}
}

// result is one variant's CPU at one file count, in percent of a core, per run.
type result struct {
	files         int
	variant       string
	idle, trickle []float64
}

func run(o options) error {
	var results []result
	root, err := os.MkdirTemp("", "idlebench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(root) }() // a temporary directory: left behind at worst
	for _, n := range o.files {
		dir := filepath.Join(root, strconv.Itoa(n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		if err := makeFiles(dir, n); err != nil {
			return err
		}
		for _, v := range variants {
			r := result{files: n, variant: v.name}
			for i := range o.runs {
				var profile string
				if o.profile != "" && i == 0 {
					profile = filepath.Join(o.profile, fmt.Sprintf("%d-%s", n, strings.NewReplacer(", ", "-", " ", "-").Replace(v.name)))
				}
				idle, trickle, err := measure(o, v, dir, n, profile)
				if err != nil {
					return fmt.Errorf("%d files, %s, run %d: %w", n, v.name, i+1, err)
				}
				fmt.Fprintf(os.Stderr, "%6d files  %-20s run %d: idle %5.1f %%, trickle %5.1f %%\n", n, v.name, i+1, idle, trickle)
				r.idle, r.trickle = append(r.idle, idle), append(r.trickle, trickle)
			}
			results = append(results, r)
		}
	}
	printTable(o, results)
	return nil
}

// makeFiles writes n files of one line each.
func makeFiles(dir string, n int) error {
	for i := range n {
		line := fmt.Sprintf("2026-01-01T00:00:00Z file %05d first line\n", i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.log", i)), []byte(line), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// measure starts v over the n files of dir (from their beginning), waits for every file's first
// line, lets it settle, and measures its CPU while nothing is written, then during the trickle.
func measure(o options, v variant, dir string, n int, profile string) (idle, trickle float64, err error) {
	runtime.GC()
	keys := map[string]any{"include": []string{filepath.Join(dir, "*.log")}, "start_at": "beginning"}
	for k, val := range v.keys {
		keys[k] = val
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	counter := &rig.Counter{}
	rcv, err := v.receiver.Start(ctx, keys, counter, rig.Host{})
	if err != nil {
		return 0, 0, err
	}
	defer func() { err = errors.Join(err, rcv.Shutdown(context.Background())) }()
	for counter.Records() < int64(n) {
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("%d of %d first lines after %s", counter.Records(), n, o.timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(o.settle)
	if idle, err = cpuPercent(o.measure, profile, "idle"); err != nil {
		return 0, 0, err
	}

	before := counter.Records()
	writer := exec.Command(os.Args[0], "-trickle", dir)
	writer.Stderr = os.Stderr
	if err := writer.Start(); err != nil {
		return 0, 0, err
	}
	time.Sleep(time.Second) // the first lines reach every file in turn
	trickle, err = cpuPercent(o.measure, profile, "trickle")
	_ = writer.Process.Kill() // our child; it only appends lines
	_ = writer.Wait()         // killed: its error says so
	if err != nil {
		return 0, 0, err
	}
	if got, want := counter.Records()-before, int64(n/10)*int64(o.measure/time.Second); got < want {
		return 0, 0, fmt.Errorf("%d records during the trickle, want at least %d", got, want)
	}
	return idle, trickle, nil
}

// cpuPercent sleeps for d and returns this process's CPU time meanwhile, in percent of d. With
// profile set, it writes a CPU profile of the window to profile-window.pprof.
func cpuPercent(d time.Duration, profile, window string) (pct float64, err error) {
	if profile != "" {
		f, err := os.Create(profile + "-" + window + ".pprof")
		if err != nil {
			return 0, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return 0, errors.Join(err, f.Close())
		}
		defer func() {
			pprof.StopCPUProfile()
			err = errors.Join(err, f.Close())
		}()
	}
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(d)
	return 100 * float64(cpuTime()-cpu0) / float64(time.Since(wall0)), nil
}

// cpuTime is this process's CPU time (children apart: the trickle writer is one).
func cpuTime() time.Duration {
	cpu, ok := testkit.ProcessCPUTime()
	if !ok {
		panic("idlebench: no process CPU time on this system")
	}
	return cpu
}

// writeTrickle appends one line a second to every tenth file of dir, the writes spread over the
// second, until it is killed.
func writeTrickle(dir string) error {
	all, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return err
	}
	var targets []string
	for i := 0; i < len(all); i += 10 {
		targets = append(targets, all[i])
	}
	if len(targets) == 0 {
		return errors.New("no files")
	}
	gap := time.Second / time.Duration(len(targets))
	next := time.Now()
	for seq := 0; ; seq++ {
		for _, p := range targets {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			_, werr := fmt.Fprintf(f, "%s trickle %d\n", time.Now().UTC().Format(time.RFC3339Nano), seq)
			if err := errors.Join(werr, f.Close()); err != nil {
				return err
			}
			next = next.Add(gap)
			time.Sleep(time.Until(next))
		}
	}
}

func printTable(o options, results []result) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nCPU of one core while following files: idle, and with one line a second into every tenth file;\n"+
		"median of %d runs of %s each, %s, GOMAXPROCS %d, load %s\n\n",
		o.runs, o.measure, runtime.Version(), runtime.GOMAXPROCS(0), strings.Join(strings.Fields(string(load))[:3], " "))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "files\treceiver\tidle\ttrickle\tidle per run\ttrickle per run\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%d\t%s\t%.1f %%\t%.1f %%\t%s\t%s\t\n", r.files, r.variant,
			stats.Median(r.idle), stats.Median(r.trickle), perRun(r.idle), perRun(r.trickle))
	}
	_ = tw.Flush() // stdout: nothing to do about a failed write
}

func perRun(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(s, " ")
}
