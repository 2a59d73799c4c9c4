package e2e

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// logWriter is the application the fault tests watch: it appends numbered entries
// ("<time> <stream> seq=0000123 <padding>") to one log file at a steady rate and rotates the
// file every rotateEvery entries, by move/create, copytruncate and move with immediate gzip in
// turn, or when told to (rotateEvery 0: only then); a file rotated plain is gzipped at the
// next rotation and the plain one removed, as logrotate's delaycompress does. Rotated files are
// kept, so that every entry stays on disk in one form or another.
type logWriter struct {
	path        string
	stream      string // names the entries of this writer
	receiver    string // the receiver that reads them: duplicates are bounded per receiver
	rate        int    // entries per second
	rotateEvery int
	// kubelet, when above 0, rotates as kubelet's ContainerLogManager does instead (see
	// kubeletRotate), keeping kubelet files, the live one included (containerLogMaxFiles).
	kubelet int
	rotated []string // with kubelet: the rotated files kept, oldest first, by their plain names

	// Owned by run until done is closed.
	lines     []string // every entry written, by seq, without its newline
	rotations int
	plain     string // the last file rotated without compression, gzipped at the next rotation
	err       error

	holds   chan hold
	rotates chan rotateNow
	stop    chan struct{}
	done    chan struct{}
}

// rotation is a way to rotate a log file.
type rotation int

const (
	moveCreate   rotation = iota // rename the file, create a new one
	copyTruncate                 // copy the file, truncate it in place
	moveCompress                 // rename the file, create a new one, gzip the renamed one at once
	// Not a rotation: another program (logrotate's create) rotated the file; close it and open
	// the path again, creating it if need be, as an application told so by postrotate does.
	reopenPath
)

// rotateNow asks the writer to rotate its file now.
type rotateNow struct {
	how     rotation
	rotated chan string // receives the rotated file's path (before any compression)
}

// hold asks the writer to leave its next entry half written.
type hold struct {
	seq    chan int      // receives the entry's seq once its first half is on disk
	resume chan struct{} // closed to write the rest
}

// startWriter starts a writer of dir/name whose entries are named stream.
func startWriter(t *testing.T, dir, name, stream, receiver string, rate, rotateEvery int) *logWriter {
	t.Helper()
	return startKubeletWriter(t, dir, name, stream, receiver, rate, rotateEvery, 0)
}

// startKubeletWriter is startWriter with logWriter.kubelet set.
func startKubeletWriter(t *testing.T, dir, name, stream, receiver string, rate, rotateEvery, kubelet int) *logWriter {
	t.Helper()
	w := &logWriter{
		path: filepath.Join(dir, name), stream: stream, receiver: receiver,
		rate: rate, rotateEvery: rotateEvery, kubelet: kubelet,
		holds: make(chan hold), rotates: make(chan rotateNow), stop: make(chan struct{}), done: make(chan struct{}),
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	go w.run(f)
	t.Cleanup(func() { w.finish(t) })
	return w
}

// finish stops the writer and fails the test if it could not write; lines and rotations are
// final afterwards.
func (w *logWriter) finish(t *testing.T) {
	t.Helper()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	if w.err != nil {
		t.Fatalf("writer %s: %v", w.stream, w.err)
	}
}

// holdPartial leaves the writer's next entry half written, without newline, and stops the
// writer until resume is called. It returns the entry's seq.
func (w *logWriter) holdPartial(t *testing.T) (seq int, resume func()) {
	t.Helper()
	h := hold{seq: make(chan int), resume: make(chan struct{})}
	select {
	case w.holds <- h:
	case <-w.done:
		t.Fatalf("writer %s stopped: %v", w.stream, w.err)
	}
	select {
	case seq = <-h.seq:
	case <-w.done:
		t.Fatalf("writer %s stopped: %v", w.stream, w.err)
	}
	return seq, func() { close(h.resume) }
}

// rotate rotates the file now, as how says, and returns the path it moved or copied the file
// to (gzipped by then for moveCompress, at the next rotation otherwise).
func (w *logWriter) rotate(t *testing.T, how rotation) string {
	t.Helper()
	r := rotateNow{how: how, rotated: make(chan string, 1)}
	select {
	case w.rotates <- r:
	case <-w.done:
		t.Fatalf("writer %s stopped: %v", w.stream, w.err)
	}
	select {
	case p := <-r.rotated:
		return p
	case <-w.done:
		t.Fatalf("writer %s stopped: %v", w.stream, w.err)
	}
	return ""
}

// reopen has the writer open its path again (reopenPath). Unlike rotate it may be called from
// any goroutine: it returns an error instead of failing the test.
func (w *logWriter) reopen() error {
	r := rotateNow{how: reopenPath, rotated: make(chan string, 1)}
	select {
	case w.rotates <- r:
	case <-w.done:
		return fmt.Errorf("writer %s stopped: %v", w.stream, w.err)
	}
	select {
	case <-r.rotated:
		return nil
	case <-w.done:
		return fmt.Errorf("writer %s stopped: %v", w.stream, w.err)
	}
}

func (w *logWriter) run(f *os.File) {
	defer close(w.done)
	defer func() {
		if err := f.Close(); err != nil && w.err == nil {
			w.err = err
		}
	}()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	start := time.Now() // the steady-rate clock: entries due = rate × time since start
	sinceRotation := 0
	var buf []byte
	for w.err == nil {
		select {
		case <-w.stop:
			return
		case h := <-w.holds:
			held := time.Now()
			line := w.next()
			cut := len(line) / 2
			if _, w.err = f.WriteString(line[:cut]); w.err != nil {
				return
			}
			h.seq <- len(w.lines) - 1
			select {
			case <-h.resume:
			case <-w.stop:
				return
			}
			if _, w.err = f.WriteString(line[cut:] + "\n"); w.err != nil {
				return
			}
			// The clock stands still while held, so the rate stays steady rather than making
			// up for the pause in one burst.
			start = start.Add(time.Since(held))
			sinceRotation++
		case r := <-w.rotates:
			var rotated string
			if f, rotated, w.err = w.rotateFile(f, r.how); w.err == nil {
				r.rotated <- rotated
			}
			sinceRotation = 0
		case <-tick.C:
		}
		due := int(time.Since(start).Seconds()*float64(w.rate)) - len(w.lines)
		for due > 0 && w.err == nil {
			n := due
			if w.rotateEvery > 0 {
				if sinceRotation >= w.rotateEvery {
					// By count, the ways in turn: move/create, copytruncate, move + gzip.
					f, _, w.err = w.rotateFile(f, rotation(w.rotations%3))
					sinceRotation = 0
					continue
				}
				n = min(due, w.rotateEvery-sinceRotation)
			}
			buf = buf[:0]
			for range n {
				buf = append(append(buf, w.next()...), '\n')
			}
			// One write per tick: a reader sees whole lines but for the moment of the write.
			if _, w.err = f.Write(buf); w.err != nil {
				return
			}
			due -= n
			sinceRotation += n
		}
	}
}

// next makes the next entry and records it.
func (w *logWriter) next() string {
	seq := len(w.lines)
	// Padding of varying length, so that lines and batches differ in size.
	line := fmt.Sprintf("%s %s seq=%07d %s", time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z"),
		w.stream, seq, strings.Repeat(string(rune('a'+seq%26)), 20+seq%61))
	w.lines = append(w.lines, line)
	return line
}

// rotateFile rotates the file written through f as how says; it returns the descriptor to
// write on with and the rotated file's path.
func (w *logWriter) rotateFile(f *os.File, how rotation) (*os.File, string, error) {
	if w.kubelet > 0 && how != reopenPath {
		return w.kubeletRotate(f)
	}
	if how == reopenPath {
		if err := f.Close(); err != nil {
			return nil, w.path, err
		}
		f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		return f, w.path, err
	}
	w.rotations++
	rotated := w.path + "." + strconv.Itoa(w.rotations)
	var compress []string
	if w.plain != "" {
		compress = append(compress, w.plain) // delaycompress: the file rotated last time
		w.plain = ""
	}
	if how == copyTruncate {
		// The writer keeps its descriptor: O_APPEND puts the next entry at 0.
		if err := copyFile(w.path, rotated); err != nil {
			return f, rotated, err
		}
		if err := f.Truncate(0); err != nil {
			return f, rotated, err
		}
		w.plain = rotated
	} else {
		if err := os.Rename(w.path, rotated); err != nil {
			return f, rotated, err
		}
		if how == moveCompress {
			compress = append(compress, rotated)
		} else {
			w.plain = rotated
		}
		if err := f.Close(); err != nil {
			return nil, rotated, err
		}
		var err error
		if f, err = os.OpenFile(w.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return nil, rotated, err
		}
	}
	for _, p := range compress {
		if err := gzipFile(p, ""); err != nil {
			return f, rotated, err
		}
	}
	return f, rotated, nil
}

// checkOnDisk checks that the files in dir, decompressed, hold every entry of the (finished)
// writers exactly once, whole: what a test finds lost or duplicated is then the collector's
// doing, not the rotations'.
func checkOnDisk(t *testing.T, dir string, ws []*logWriter) {
	t.Helper()
	if tl := count(ws, readOnDisk(t, dir)); len(tl.bad) > 0 || len(tl.lost) > 0 || tl.dups > 0 {
		t.Fatalf("the log files themselves: %s", tl)
	}
}

// readOnDisk returns the lines of each file in dir, decompressed, without their newlines.
func readOnDisk(t *testing.T, dir string) [][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var runs [][]string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
		if len(b) == 0 {
			continue // created by the last rotation, nothing written yet
		}
		runs = append(runs, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
	}
	return runs
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read only
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}

// gzipFile compresses p to p.gz and removes p. With through "" the .gz is written in place,
// as logrotate does (a reader may see it grow); otherwise it is written to p+through and renamed
// to p.gz once complete, as kubelet does (through ".tmp").
func gzipFile(p, through string) error {
	src, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read only
	name := p + ".gz"
	if through != "" {
		name = p + through
	}
	dst, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	zw, err := testkit.NewWriter(testkit.Gzip, dst)
	if err != nil {
		return errors.Join(err, dst.Close())
	}
	_, err = io.Copy(zw, src)
	if err := errors.Join(err, zw.Close(), dst.Close()); err != nil {
		return err
	}
	if through != "" {
		if err := os.Rename(name, p+".gz"); err != nil {
			return err
		}
	}
	return os.Remove(p)
}
