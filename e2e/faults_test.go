package e2e

// The fault tests run the built collector as real processes while logWriters write and rotate
// their files, then compare what was exported with what was written. Their figures go to the
// test log and, when FAULTS_REPORT names a file (as `make e2e` does), to that file too: go test
// shows nothing of a package that passes.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// faultBatch is batch.max_records of the receivers in the fault tests: small, so that a run
// takes many deliveries, each followed by a checkpoint, and the duplicate bound is tight.
const faultBatch = 100

// faultInFlight is batch.max_in_flight of the plain receiver in the fault tests, as the shipped
// agent's; the merging receiver has one batch in flight whatever it is set to.
const faultInFlight = 2

// duplicateBound is how many entries a kill may leave to be read again, per receiver: the
// batches in flight, accepted but not yet checkpointed.
var duplicateBound = map[string]int{"plain": faultInFlight * faultBatch, "merged": faultBatch}

func needCollector(t *testing.T) {
	if os.Getenv("OTELCOL_BIN") == "" {
		t.Skip(skipNoCollector)
	}
}

// faultRand returns the source of a test's random moments, seeded from E2E_SEED to replay a
// run, else from the clock; the seed is reported.
func faultRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("E2E_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("E2E_SEED: %v", err)
		}
	}
	report(t, "%s: seed %d (replay with E2E_SEED=%d)", t.Name(), seed, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// between returns a random duration in [lo, hi).
func between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}

// report logs a figure and appends it to the file FAULTS_REPORT names, if any.
func report(t *testing.T, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	path := os.Getenv("FAULTS_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintln(f, line)
	if err = errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
}

// runSeries runs one collector configuration again and again. Each run exports to a file of its
// own: a SIGKILL can tear the line being written, and that line then stays the last of its file
// instead of running into the next run's first.
type runSeries struct {
	t      *testing.T
	dir    string
	config func(out string) string // the YAML of a run that exports to out
	outs   []string
	cur    *collector
	stops  []time.Duration // of each run ended by a signal other than SIGKILL: from the signal to the exit
}

// drainBound is how long a receiver's Shutdown delivers what it built (drainTimeout in the
// receiver): what is not accepted by then is read again after the restart. A test that wants
// no duplicates across graceful stops needs each stop's drain to finish within it.
const drainBound = 5 * time.Second

// stopBound is how long a run may take to end after a signal: the drain's bound and, beyond
// it, room for a loaded machine.
const stopBound = drainBound + 25*time.Second

func (s *runSeries) start() {
	s.t.Helper()
	n := len(s.outs)
	out := filepath.Join(s.dir, fmt.Sprintf("out-%02d.jsonl", n))
	cfg := testkit.WriteFile(s.t, filepath.Join(s.dir, fmt.Sprintf("run-%02d.yaml", n)), s.config(out))
	s.outs = append(s.outs, out)
	s.cur = startCollector(s.t, cfg)
}

// end sends sig to the current run and checks that it ended as it should: killed by SIGKILL,
// or exiting with status 0.
// wrapUp ends a series with its collector running: it lets the collector catch up, finishes
// the writers, checks the files on disk, waits until every entry is exported, stops the
// collector and checks the entries; it returns what each run exported and the tally.
func (s *runSeries) wrapUp(t *testing.T, logs string, ws []*logWriter) ([][]string, *tally) {
	t.Helper()
	time.Sleep(time.Second)
	for _, w := range ws {
		w.finish(t)
	}
	checkOnDisk(t, logs, ws)
	runs, tl := waitDelivered(t, s.cur, ws, s.outs, 2*time.Second, 2*time.Minute)
	s.end(syscall.SIGTERM)
	checkEntries(t, tl)
	return runs, tl
}

func (s *runSeries) end(sig syscall.Signal) {
	s.t.Helper()
	c := s.cur
	sent := time.Now()
	if !c.end(sig, stopBound) {
		_ = c.cmd.Process.Kill()
		<-c.exited
		s.t.Fatalf("run %d did not end within %s of %v; output:\n%s", len(s.outs)-1, stopBound, sig, c.out.String())
	}
	if sig != syscall.SIGKILL {
		s.stops = append(s.stops, time.Since(sent))
	}
	st := c.cmd.ProcessState
	ws, _ := st.Sys().(syscall.WaitStatus)
	if sig == syscall.SIGKILL && ws.Signaled() && ws.Signal() == syscall.SIGKILL ||
		sig != syscall.SIGKILL && st.Success() {
		return
	}
	s.t.Fatalf("run %d, sent %v, ended with %v; output:\n%s", len(s.outs)-1, sig, st, c.out.String())
}

// entryID names an entry: its writer's stream and its seq.
type entryID struct {
	stream string
	seq    int
}

// parseEntry reads the stream and seq of an entry "<time> <stream> seq=0000123 <padding>".
func parseEntry(body string) (entryID, bool) {
	f := strings.SplitN(body, " ", 4)
	if len(f) < 4 || !strings.HasPrefix(f[2], "seq=") {
		return entryID{}, false
	}
	seq, err := strconv.Atoi(f[2][len("seq="):])
	return entryID{f[1], seq}, err == nil
}

// tally compares what runs exported with what the writers wrote.
type tally struct {
	written  int
	exported int
	lost     []entryID
	dups     int               // records beyond the first of their entry
	bad      []string          // records that are no entry as written: torn, joined, cut
	runsOf   map[entryID][]int // the runs that exported each entry, in order
	twiceIn  int               // entries one run exported more than once
	receiver map[string]string // of each stream
	gone     int               // entries no log file holds whole (see excuse): not lost
	torn     int               // records that are a torn line a log file holds (see excuse)
}

// count tallies runs (the bodies each run exported) against ws. The writers must be finished.
func count(ws []*logWriter, runs [][]string) *tally {
	tl := &tally{runsOf: map[entryID][]int{}, receiver: map[string]string{}}
	byStream := map[string]*logWriter{}
	for _, w := range ws {
		byStream[w.stream] = w
		tl.receiver[w.stream] = w.receiver
		tl.written += len(w.lines)
	}
	for i, bodies := range runs {
		for _, b := range bodies {
			tl.exported++
			id, ok := parseEntry(b)
			w := byStream[id.stream]
			if !ok || w == nil || id.seq >= len(w.lines) || w.lines[id.seq] != b {
				tl.bad = append(tl.bad, b)
				continue
			}
			tl.runsOf[id] = append(tl.runsOf[id], i)
		}
	}
	for _, w := range ws {
		for seq := range w.lines {
			rs := tl.runsOf[entryID{w.stream, seq}]
			if len(rs) == 0 {
				tl.lost = append(tl.lost, entryID{w.stream, seq})
				continue
			}
			tl.dups += len(rs) - 1
			if len(slices.Compact(slices.Clone(rs))) < len(rs) {
				tl.twiceIn++
			}
		}
	}
	return tl
}

// againLater returns, for each receiver and run, how many of the entries that run exported
// were exported again by a later run: what that run's end left to be read again.
func (tl *tally) againLater(runs int) map[string][]int {
	out := map[string][]int{}
	for _, r := range tl.receiver {
		out[r] = make([]int, runs)
	}
	for id, rs := range tl.runsOf {
		r := tl.receiver[id.stream]
		for _, run := range slices.Compact(slices.Clone(rs[:len(rs)-1])) {
			out[r][run]++
		}
	}
	return out
}

// excuse takes out of tl what the log files themselves lack, as onDisk (the tally of the files
// on disk against the same writers) shows: an entry no file holds whole is not lost but gone,
// and a record that is a torn line some file holds is not malformed but torn. (logrotate's
// copytruncate loses what is written between its copy and its truncation: its manual says so.)
func (tl *tally) excuse(onDisk *tally) {
	gone := map[entryID]bool{}
	for _, id := range onDisk.lost {
		gone[id] = true
	}
	tornOnDisk := map[string]bool{}
	for _, b := range onDisk.bad {
		tornOnDisk[b] = true
	}
	tl.lost = slices.DeleteFunc(tl.lost, func(id entryID) bool {
		if gone[id] {
			tl.gone++
			return true
		}
		return false
	})
	tl.bad = slices.DeleteFunc(tl.bad, func(b string) bool {
		if tornOnDisk[b] {
			tl.torn++
			return true
		}
		return false
	})
}

func (tl *tally) String() string {
	return fmt.Sprintf("%d entries written, %d records exported, %d lost, %d duplicated, %d malformed",
		tl.written, tl.exported, len(tl.lost), tl.dups, len(tl.bad))
}

// bodies reads the bodies of the records a file exporter wrote to path.
func bodies(t *testing.T, path string) []string {
	recs := readRecords(t, path)
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Body().Str()
	}
	return out
}

// waitDelivered waits until the runs' exports hold every entry the (finished) writers wrote
// and nothing new has come for quiet: duplicates would come then. If delivery stalls (nothing
// new for 30s while entries are missing) or timeout passes, it fails the test, shows what c's
// receivers logged, and returns what was there. Only the last file still grows; the others are
// read once.
func waitDelivered(t *testing.T, c *collector, ws []*logWriter, outs []string, quiet, timeout time.Duration) ([][]string, *tally) {
	t.Helper()
	return waitDeliveredExcept(t, c, ws, outs, nil, quiet, timeout)
}

// waitDeliveredExcept is waitDelivered for entries the log files may lack: onDisk, when not
// nil, is the tally of the files on disk (see tally.excuse), and the entries it lacks are not
// waited for.
func waitDeliveredExcept(t *testing.T, c *collector, ws []*logWriter, outs []string, onDisk *tally, quiet, timeout time.Duration) ([][]string, *tally) {
	t.Helper()
	runs := make([][]string, len(outs))
	for i, out := range outs[:len(outs)-1] {
		runs[i] = bodies(t, out)
	}
	deadline := time.Now().Add(timeout)
	last, since := -1, time.Now()
	for {
		runs[len(runs)-1] = bodies(t, outs[len(outs)-1])
		tl := count(ws, runs)
		if onDisk != nil {
			tl.excuse(onDisk)
		}
		if n := len(runs[len(runs)-1]); n != last {
			last, since = n, time.Now()
		} else if len(tl.lost) == 0 && time.Since(since) >= quiet {
			return runs, tl
		}
		if time.Now().After(deadline) || time.Since(since) > 30*time.Second {
			t.Errorf("delivery stalled: waited %s, the last %s without a new record; what the receivers logged:\n%s",
				timeout-time.Until(deadline), time.Since(since).Round(time.Second), receiverLog(c))
			return runs, tl
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// receiverLog returns the lines of c's output that its receivers logged.
func receiverLog(c *collector) string {
	var b strings.Builder
	for line := range strings.Lines(c.out.String()) {
		if strings.Contains(line, `"otelcol.component.kind": "receiver"`) {
			b.WriteString(line)
		}
	}
	if b.Len() == 0 {
		return "(nothing)"
	}
	return b.String()
}

// checkEntries fails the test on records that are no entry as written, on lost entries, and
// on entries one run exported twice (no fault explains those).
func checkEntries(t *testing.T, tl *tally) {
	t.Helper()
	if len(tl.bad) > 0 {
		t.Errorf("%d records are not entries as written, e.g. %q", len(tl.bad), tl.bad[:min(len(tl.bad), 3)])
	}
	if len(tl.lost) > 0 {
		t.Errorf("%d entries lost, e.g. %v", len(tl.lost), tl.lost[:min(len(tl.lost), 10)])
	}
	if tl.twiceIn > 0 {
		t.Errorf("%d entries exported twice by one run", tl.twiceIn)
	}
}

// pairWriters starts the writers of the SIGKILL and SIGTERM tests in dir: app.log for the
// receiver mergelog/plain, m1.log and m2.log for mergelog/merged, which merges them by time.
func pairWriters(t *testing.T, dir string) []*logWriter {
	return []*logWriter{
		startWriter(t, dir, "app.log", "a", "plain", 600, 1000),
		startWriter(t, dir, "m1.log", "m1", "merged", 300, 500),
		startWriter(t, dir, "m2.log", "m2", "merged", 300, 500),
	}
}

// faultDirs makes a test's directory and, in it, the directory "logs" its writers write in.
func faultDirs(t *testing.T) (dir, logs string) {
	t.Helper()
	dir = t.TempDir()
	logs = filepath.Join(dir, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, logs
}

// pairSeries sets up the SIGKILL and SIGTERM tests: the pair of receivers' collector, with
// force_flush_period forceFlush and file_storage's fsync as given, and their writers, started;
// it returns the directory they write in.
func pairSeries(t *testing.T, forceFlush string, fsync bool) (*runSeries, []*logWriter, string) {
	t.Helper()
	dir, logs := faultDirs(t)
	s := &runSeries{t: t, dir: dir, config: func(out string) string { return pairConfig(dir, out, forceFlush, fsync) }}
	return s, pairWriters(t, logs), logs
}

// pairConfig is the collector of the SIGKILL and SIGTERM tests: both receivers checkpoint in
// file_storage under dir and export straight to a file exporter (no batch processor, no queue:
// ConsumeLogs returns once the records are written, so the batch in flight is the receiver's).
func pairConfig(dir, out, forceFlush string, fsync bool) string {
	logs := filepath.Join(dir, "logs")
	return fmt.Sprintf(`
extensions:
  file_storage:
    directory: %[1]q
    create_directory: true
    # With fsync each checkpoint is written through to the disk, as for power loss; it also
    # widens the moment between a batch written out and its checkpoint, so that some kills
    # land there.
    fsync: %[8]t
    compaction:
      directory: %[1]q
receivers:
  mergelog/plain:
    include: [%[2]q]
    start_at: beginning
    poll_interval: 100ms
    force_flush_period: %[5]s
    storage: file_storage
    batch:
      max_records: %[6]d
      max_in_flight: %[7]d
  mergelog/merged:
    include: [%[3]q]
    start_at: beginning
    poll_interval: 100ms
    force_flush_period: %[5]s
    storage: file_storage
    batch:
      max_records: %[6]d
    timestamp:
      format: rfc3339
    merge:
      enabled: true
      window: 1s
exporters:
  file:
    path: %[4]q
    # With rotation set the exporter writes to the file in ConsumeLogs; without, it may keep up
    # to 4 KiB in memory for a second, which a SIGKILL loses after the receiver checkpointed it.
    rotation:
      max_megabytes: 1024
service:
  extensions: [file_storage]
  telemetry:
    logs:
      level: info
    metrics:
      level: none
  pipelines:
    logs/plain:
      receivers: [mergelog/plain]
      exporters: [file]
    logs/merged:
      receivers: [mergelog/merged]
      exporters: [file]
`, filepath.Join(dir, "storage"), filepath.Join(logs, "app.log*"), filepath.Join(logs, "m?.log*"), out,
		forceFlush, faultBatch, faultInFlight, fsync)
}

func rotations(ws []*logWriter) int {
	n := 0
	for _, w := range ws {
		n += w.rotations
	}
	return n
}

// TestFaultsSIGKILL kills the collector with SIGKILL at random moments while the writers write
// and rotate, restarting it each time on the same file_storage, and checks that every entry
// written was exported and what came twice.
//
// The bound: a receiver writes its checkpoint after each accepted batch and before it hands out
// the next, and the file exporter has written a batch when ConsumeLogs returns. So what a kill
// leaves to be read again, beyond the checkpoint, is at most the batches in flight that were
// accepted but whose checkpoint was not yet written: at most faultInFlight × faultBatch entries
// for the plain receiver and faultBatch for the merging one (one batch in flight; entries held
// in the merge window are not delivered, and, each file going forward in time, the merge
// releases a file's entries in file order). The test asserts exactly that for every kill: the
// entries a run exported that a later run exported again are within duplicateBound.
func TestFaultsSIGKILL(t *testing.T) {
	needCollector(t)
	const kills = 12
	rng := faultRand(t)
	began := time.Now()
	s, ws, logs := pairSeries(t, "500ms", true)
	for range kills {
		s.start()
		// From the collector's start up to past a few rotations: kills land in start-up and
		// restore, in catch-up after the last restart, and in steady tailing.
		time.Sleep(between(rng, 200*time.Millisecond, 3*time.Second))
		s.end(syscall.SIGKILL)
		time.Sleep(between(rng, 0, time.Second)) // the writers go on, and rotate, meanwhile
	}
	s.start()
	runs, tl := s.wrapUp(t, logs, ws)
	again := tl.againLater(len(runs))
	for _, r := range []string{"plain", "merged"} {
		for run, n := range again[r] {
			if n > duplicateBound[r] {
				t.Errorf("mergelog/%s: %d entries exported by run %d came again after its kill, more than the %d of the batches in flight",
					r, n, run, duplicateBound[r])
			}
		}
	}
	perRun := make([]int, len(runs))
	for i, r := range runs {
		perRun[i] = len(r)
	}
	report(t, "SIGKILL: %d kills, %d rotations; %s; records exported per run %v; read again after each kill: plain %v (bound %d), merged %v (bound %d); %s",
		kills, rotations(ws), tl, perRun, again["plain"][:kills], duplicateBound["plain"], again["merged"][:kills], duplicateBound["merged"],
		time.Since(began).Round(time.Second))
}

// TestFaultsSIGTERM stops the collector with SIGTERM at random moments, each time while every
// writer has left an entry half written, and restarts it; the writers complete those entries
// after the restart. Nothing may be lost or exported twice, and each half-written entry must
// come exactly once, whole.
func TestFaultsSIGTERM(t *testing.T) {
	needCollector(t)
	const terms = 6
	rng := faultRand(t)
	began := time.Now()
	// force_flush_period 1m: the half line must wait for its end across the restart; with the
	// default 500ms an idle partial line is emitted as it is (as file_log does).
	//
	// No fsync: no duplicate across a stop needs the stop's drain to deliver and checkpoint all
	// it built within drainBound, and with fsync each of those checkpoints waits for the disk,
	// whose latency the machine's other work sets (under `make test-loaded`, beside other work,
	// one stop took 5.3 s; alone they take 10-40 ms). Without it the drain is a few batches
	// written to the page cache, well within the bound on a loaded machine; a graceful stop
	// loses no power, and SIGKILL's test keeps fsync.
	s, ws, logs := pairSeries(t, "1m", false)
	var partials []entryID
	s.start()
	for range terms {
		time.Sleep(between(rng, 500*time.Millisecond, 2500*time.Millisecond))
		var resumes []func()
		for _, w := range ws {
			seq, resume := w.holdPartial(t)
			partials = append(partials, entryID{w.stream, seq})
			resumes = append(resumes, resume)
		}
		s.end(syscall.SIGTERM)
		time.Sleep(between(rng, 0, time.Second))
		s.start()
		// Let the new run read up to the half line (or not) before it is completed.
		time.Sleep(between(rng, 300*time.Millisecond, 1500*time.Millisecond))
		for _, resume := range resumes {
			resume()
		}
	}
	_, tl := s.wrapUp(t, logs, ws)
	// The stops' drains (what was built and the merge window's second) are a few batches of
	// faultBatch: well within drainBound on a loaded machine. The stop times are reported, so
	// that a duplicate can be told apart from a drain that ran out.
	slowest := slices.Max(s.stops)
	stops := make([]string, len(s.stops))
	for i, d := range s.stops {
		stops[i] = d.Round(time.Millisecond).String()
	}
	if tl.dups > 0 {
		t.Errorf("%d records duplicated across graceful restarts (the slowest stop took %s; a drain cut off at %s leaves its batches to be read again)",
			tl.dups, slowest.Round(time.Millisecond), drainBound)
	}
	once := 0
	for _, id := range partials {
		if n := len(tl.runsOf[id]); n == 1 {
			once++
		} else {
			t.Errorf("entry %v, half written at a SIGTERM, was exported %d times whole", id, n)
		}
	}
	report(t, "SIGTERM: %d stops, %d rotations; %d of %d entries half written at a stop exported once, whole; %s; stops took up to %s (the drain has %s; each: %s); %s",
		terms, rotations(ws), once, len(partials), tl, slowest.Round(time.Millisecond), drainBound, strings.Join(stops, " "), time.Since(began).Round(time.Second))
}
