package node

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInodeReused is the loss the real-node runs show, on its own. At each rotation kubelet
// removes the oldest rotated file (and the plain one it has just gzipped) and at once asks
// containerd to reopen the log, and containerd creates the new 0.log within a millisecond:
// ext4 gives it the inode just freed. Here a rotated .gz the agent has read is removed and
// 0.log created with its inode (the free inodes below it taken first, by files the globs do not
// match, so that the file system's choice is not left to chance), then written on: every line of
// the new 0.log must arrive.
func TestInodeReused(t *testing.T) {
	if os.Getenv("OTELCOL_BIN") == "" {
		t.Skip(skipNoCollector)
	}
	dir, err := runDir(t.TempDir(), "inode")
	if err != nil {
		t.Fatal(err)
	}
	pods := filepath.Join(dir, "pods")
	logDir := filepath.Join(pods, "e2e_app_00000000-0000-0000-0000-000000000001", "app")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	rotated := filepath.Join(logDir, "0.log.20261202-080000.gz")
	if err := os.WriteFile(rotated, gzipped(t, criLines("old", 0, 100)), 0o640); err != nil {
		t.Fatal(err)
	}
	g, err := startGateway(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.stop()
	a, err := startRunAgent(dir, "mergelog", shippedConfig, pods, g.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := a.stop(); err != nil {
			t.Error(err)
		}
	}()
	written := map[string]int{"old": 100}
	if !waitGateway(g, written, time.Now()) {
		t.Fatalf("the rotated file's lines did not arrive; agent log %s", a.logPath)
	}

	live := filepath.Join(logDir, "0.log")
	freed, reused := replaceReusingInode(t, rotated, live, criLines("new", 0, 100))
	if !reused {
		t.Skipf("the file system gave 0.log inode %d, not the one freed (%d): nothing to test here", inodeOf(t, live), freed)
	}
	time.Sleep(time.Second) // the container writes on, a poll or more later
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(criLines("new", 100, 200))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	written["new"] = 200
	waitGateway(g, written, time.Now())
	if tl := g.tally(written); tl.missing > 0 {
		t.Errorf("0.log, created with the inode of a rotated file the agent had read (%d): %d of its 200 lines missing (%s); agent log %s",
			freed, tl.missing, runsText(tl.missingRuns, 5), a.logPath)
	}
}

// replaceReusingInode removes old and creates path with content, giving it old's inode if it
// can: first it takes the free inodes the file system would hand out before old's, with files
// outside the globs, then removes old and creates path at once. It reports old's inode and
// whether path got it.
func replaceReusingInode(t *testing.T, old, path string, content []byte) (uint64, bool) {
	t.Helper()
	freed := inodeOf(t, old)
	var fillers []string
	defer func() {
		for _, f := range fillers {
			_ = os.Remove(f) // outside the globs: only tidiness
		}
	}()
	for n := 0; n < 10000; n++ {
		filler := filepath.Join(filepath.Dir(path), fmt.Sprintf("filler-%d", n))
		if err := os.WriteFile(filler, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		fillers = append(fillers, filler)
		if inodeOf(t, filler) > freed {
			break
		}
	}
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	// Created under a name outside the globs and renamed, so that no poll sees it empty.
	if err := os.WriteFile(path+"-new", content, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+"-new", path); err != nil {
		t.Fatal(err)
	}
	return freed, inodeOf(t, path) == freed
}

func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// criLines are lines from..to-1 of container id as containerd's CRI logger writes them.
func criLines(id string, from, to int) []byte {
	var b []byte
	for seq := from; seq < to; seq++ {
		b = append(b, "2026-12-02T08:00:00.000000000Z stdout F "...)
		b = append(lineText(b, id, seq, minLineSize+seq%100), '\n')
	}
	return b
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
