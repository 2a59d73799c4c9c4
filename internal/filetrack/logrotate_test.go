package filetrack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// logrotateCmd returns the real logrotate, or skips the test: .ci/run installs it.
func logrotateCmd(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("logrotate"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/logrotate"); err == nil {
		return "/usr/sbin/logrotate"
	}
	t.Skip("logrotate is not installed: `apt-get install logrotate` (.ci/run installs it)")
	return ""
}

// logrotateOnce runs the real logrotate, forced, over path with the given directives.
func logrotateOnce(t *testing.T, bin, path, how string) {
	t.Helper()
	dir := filepath.Dir(path)
	conf := testkit.WriteFile(t, filepath.Join(t.TempDir(), "logrotate.conf"),
		fmt.Sprintf("%s {\n    rotate 50\n    %s\n    compress\n    delaycompress\n    missingok\n}\n", path, how))
	out, err := exec.Command(bin, "-f", "-s", filepath.Join(dir, "..", "logrotate.state"), conf).CombinedOutput()
	if err != nil {
		t.Fatalf("logrotate: %v\n%s", err, out)
	}
}

// TestLogrotateCopytruncate rotates with the real logrotate, copytruncate + compress +
// delaycompress, the way it works: m.log.1 is compressed into m.log.2.gz and removed, and the
// copy of m.log is created as the next m.log.1, where the file system gives it the inode just
// freed, with the same size when the log wrote as much as before. Each rotation's content is
// seen by a poll before the rotation or not, and the tracker restarts from its checkpoint
// between some rotations: every line is read once.
func TestLogrotateCopytruncate(t *testing.T) {
	bin := logrotateCmd(t)
	h := newHarness(t, Options{})
	h.dir = filepath.Join(h.dir, "logs")
	must(t, os.Mkdir(h.dir, 0o755))
	opts := Options{StartAtBeginning: true, Include: []string{filepath.Join(h.dir, "m.log*")}}
	h.start(opts)
	p := h.path("m.log")
	var read []string
	next := 0
	for i, r := range []struct {
		lines         int
		seen, restart bool
	}{
		{300, true, false}, {300, true, false}, {300, false, false}, {350, true, true},
		{350, true, false}, {200, false, true}, {250, true, false}, {250, true, true},
	} {
		testkit.AppendFile(t, p, text(lines("m", next, next+r.lines)))
		next += r.lines
		if r.seen {
			h.rounds(2)
		}
		if r.restart {
			cp := h.tr.Checkpoint()
			read = append(read, h.all()...)
			h.start(opts)
			must(t, h.tr.Restore(cp))
		}
		before, _ := os.Stat(h.path("m.log.1"))
		logrotateOnce(t, bin, p, "copytruncate")
		after, _ := os.Stat(h.path("m.log.1"))
		if before != nil && os.SameFile(before, after) {
			t.Logf("rotation %d: the new m.log.1 took the inode of the old one", i)
		}
		h.rounds(2)
	}
	read = append(read, h.all()...)
	if missing, extra := diff(lines("m", 0, next), read); len(missing)+len(extra) > 0 {
		t.Fatalf("missing %s\nextra (read twice) %s", short(missing), short(extra))
	}
}
