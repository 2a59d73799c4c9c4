package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// logrotateKeep is logrotate's `rotate N` in TestFaultsLogrotate: more than a run rotates, so
// that every entry stays on disk, in one file or another, to be counted.
const logrotateKeep = 200

// logrotateSize is the `size` that triggers a rotation: about a second of app.log's entries.
const logrotateSize = "64k"

// needLogrotate returns the logrotate command, or skips the test, saying so in the fault report
// too (go test shows nothing of a skip): .ci/run installs it on a fresh machine.
func needLogrotate(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("logrotate"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/logrotate"); err == nil {
		return "/usr/sbin/logrotate" // a PATH without sbin
	}
	msg := "logrotate is not installed, so TestFaultsLogrotate skips: `apt-get install logrotate` (.ci/run installs it when it can)"
	report(t, "%s: skipped: %s", t.Name(), msg)
	t.Skip(msg)
	return ""
}

// logrotateConfig is the configuration logrotate runs with in TestFaultsLogrotate: the Debian
// way, create + compress + delaycompress, for the files in create, and copytruncate + compress
// + delaycompress for those in copytruncate; size-triggered, keeping logrotateKeep files.
func logrotateConfig(logs string, create, copytruncate []string) string {
	var b []byte
	for _, group := range []struct {
		names []string
		how   string
	}{{create, "create"}, {copytruncate, "copytruncate"}} {
		for _, name := range group.names {
			b = fmt.Appendf(b, `%s {
    size %s
    rotate %d
    %s
    compress
    delaycompress
    missingok
    notifempty
}
`, filepath.Join(logs, name), logrotateSize, logrotateKeep, group.how)
		}
	}
	return string(b)
}

// rotator runs logrotate at random intervals, as cron would, only more often, and then tells the
// writers of the files it rotates by create to reopen them, as a postrotate script would: until
// then they go on writing to the file logrotate renamed.
type rotator struct {
	cmd    []string     // logrotate -s state conf
	reopen []*logWriter // the writers of the files rotated by create

	// Owned by run until done is closed.
	runs    int
	slowest time.Duration
	err     error

	stop, done chan struct{}
}

func startRotator(t *testing.T, bin, dir string, rng *rand.Rand, reopen []*logWriter, config string) *rotator {
	t.Helper()
	conf := testkit.WriteFile(t, filepath.Join(dir, "logrotate.conf"), config)
	r := &rotator{
		cmd:    []string{bin, "-s", filepath.Join(dir, "logrotate.state"), conf},
		reopen: reopen,
		stop:   make(chan struct{}), done: make(chan struct{}),
	}
	// A source of its own: rng is the test goroutine's.
	go r.run(rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
	t.Cleanup(func() { r.finish(t) })
	return r
}

func (r *rotator) run(rng *rand.Rand) {
	defer close(r.done)
	for {
		select {
		case <-r.stop:
			return
		case <-time.After(between(rng, 200*time.Millisecond, 600*time.Millisecond)):
		}
		began := time.Now()
		out, err := exec.Command(r.cmd[0], r.cmd[1:]...).CombinedOutput()
		if err != nil {
			r.err = fmt.Errorf("%v: %w: %s", r.cmd, err, out)
			return
		}
		r.runs++
		r.slowest = max(r.slowest, time.Since(began))
		for _, w := range r.reopen {
			if r.err = w.reopen(); r.err != nil {
				return
			}
		}
	}
}

// finish stops the rotator once its current run of logrotate is over, and fails the test if a
// run failed.
func (r *rotator) finish(t *testing.T) {
	t.Helper()
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.done
	if r.err != nil {
		t.Fatalf("logrotate: %v", r.err)
	}
}

// rotatedFiles counts, for each name, the files logrotate rotated it to in logs (name.1,
// name.2.gz, ...): with none removed (rotate logrotateKeep), that is its rotations. It fails
// the test if logrotate reached its last kept number.
func rotatedFiles(t *testing.T, logs string, names []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, name := range names {
		re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `\.(\d+)(\.gz)?$`)
		entries, err := os.ReadDir(logs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			m := re.FindStringSubmatch(e.Name())
			if m == nil {
				continue
			}
			out[name]++
			if n, _ := strconv.Atoi(m[1]); n >= logrotateKeep {
				t.Fatalf("%s: logrotate reached rotate %d, so it may have removed entries the test counts: raise logrotateKeep", e.Name(), logrotateKeep)
			}
		}
	}
	return out
}

// TestFaultsLogrotate is TestFaultsSIGKILL with the real logrotate rotating the files: the
// Debian way (create + compress + delaycompress) for app.log and m2.log, copytruncate (+
// compress + delaycompress) for m1.log, size-triggered, run every few hundred milliseconds
// while the writers write at a steady rate and the collector is killed with SIGKILL at random
// moments and restarted. Every entry the files hold must be exported at least once, and what a
// kill leaves to be read again stays within duplicateBound, as in TestFaultsSIGKILL.
//
// copytruncate loses what the application writes between logrotate's copy and its truncation
// (logrotate's manual says so): the test counts those entries from the files on disk and
// reports them apart; they are logrotate's loss, not the collector's.
func TestFaultsLogrotate(t *testing.T) {
	needCollector(t)
	bin := needLogrotate(t)
	const kills = 10
	rng := faultRand(t)
	began := time.Now()
	dir, logs := faultDirs(t)
	s := &runSeries{t: t, dir: dir, config: func(out string) string { return pairConfig(dir, out, "500ms", true) }}
	// Writers that never rotate themselves (rotateEvery 0): logrotate does.
	app := startWriter(t, logs, "app.log", "a", "plain", 600, 0)
	m1 := startWriter(t, logs, "m1.log", "m1", "merged", 300, 0)
	m2 := startWriter(t, logs, "m2.log", "m2", "merged", 300, 0)
	ws := []*logWriter{app, m1, m2}
	names := []string{"app.log", "m1.log", "m2.log"}
	rot := startRotator(t, bin, dir, rng, []*logWriter{app, m2},
		logrotateConfig(logs, []string{"app.log", "m2.log"}, []string{"m1.log"}))

	for range kills {
		s.start()
		time.Sleep(between(rng, 200*time.Millisecond, 3*time.Second))
		s.end(syscall.SIGKILL)
		time.Sleep(between(rng, 0, time.Second))
	}
	s.start()
	// As wrapUp, but the rotator stops first, and the entries the files lack are not expected.
	time.Sleep(time.Second)
	rot.finish(t)
	for _, w := range ws {
		w.finish(t)
	}
	onDisk := count(ws, readOnDisk(t, logs))
	if onDisk.dups > 0 {
		t.Fatalf("the log files themselves hold entries twice: %s", onDisk)
	}
	for _, id := range onDisk.lost {
		if id.stream != m1.stream {
			t.Fatalf("entry %v is in no log file, and only copytruncate (%s) may lose entries: %s", id, m1.path, onDisk)
		}
	}
	rotated := rotatedFiles(t, logs, names)
	runs, tl := waitDeliveredExcept(t, s.cur, ws, s.outs, onDisk, 2*time.Second, 2*time.Minute)
	s.end(syscall.SIGTERM)
	checkEntries(t, tl)
	again := tl.againLater(len(runs))
	for _, r := range []string{"plain", "merged"} {
		for run, n := range again[r] {
			if n > duplicateBound[r] {
				t.Errorf("mergelog/%s: %d entries exported by run %d came again after its kill, more than the %d of the batches in flight",
					r, n, run, duplicateBound[r])
			}
		}
	}
	total := 0
	for _, n := range rotated {
		total += n
	}
	report(t, "logrotate: %d kills, %d rotations by logrotate (app.log %d, m2.log %d: create; m1.log %d: copytruncate; compress, delaycompress, size %s) in %d runs of it (slowest %s); "+
		"%s; of the entries written, %d never reached the files whole (copytruncate's window), %d torn there; read again after each kill: plain %v (bound %d), merged %v (bound %d); %s",
		kills, total, rotated["app.log"], rotated["m2.log"], rotated["m1.log"], logrotateSize, rot.runs, rot.slowest.Round(time.Millisecond),
		tl, len(onDisk.lost), len(onDisk.bad), again["plain"][:kills], duplicateBound["plain"], again["merged"][:kills], duplicateBound["merged"],
		time.Since(began).Round(time.Second))
}
