package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A workload is a tree of log files written before the agent starts (a catch-up: the agent
// reads them from the beginning) and the number of records it must deliver. Every record
// carries "seq=<n>" in its body with n unique in the tree, so the gateway can tell each record
// once.
type workload struct {
	name    string
	about   string // what the table says of it, if anything
	root    string // the tree: kubelet's /var/log/pods, or a directory of plain files
	records int
	bytes   int64 // bytes of the files written
	// copies is how often a record's seq is in the request that carries it: 1 (0 means 1), or
	// 2 where a parser keeps the body and copies the message into an attribute.
	copies int
}

// writer appends lines to one file through a buffer and counts its bytes.
type writer struct {
	f     *os.File
	w     *bufio.Writer
	bytes int64
}

func create(path string) (*writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &writer{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (w *writer) line(format string, args ...any) error {
	n, err := fmt.Fprintf(w.w, format, args...)
	w.bytes += int64(n)
	return err
}

func (w *writer) close() error {
	if err := w.w.Flush(); err != nil {
		return err
	}
	return w.f.Close()
}

// message is an application log message of 60–250 bytes.
func message(r *rand.Rand, seq int) string {
	const words = "request handled user cache miss upstream latency retry order payment shipped queue " +
		"timeout connection pool worker batch flushed session token refreshed "
	n := 40 + r.IntN(190)
	start := r.IntN(len(words) - 60)
	body := make([]byte, 0, n)
	for len(body) < n {
		body = append(body, words[start:start+min(60, n-len(body))]...)
	}
	return fmt.Sprintf("level=info seq=%09d msg=%q", seq, body)
}

// podTree is kubelet's tree of pods whose containers write message's lines.
func podTree(dir string, size int64, pods int, seed uint64) (workload, error) {
	r := rand.New(rand.NewPCG(seed, 1))
	return criTree(workload{name: "pods", root: filepath.Join(dir, "pods")}, r, size, pods,
		func(seq int) string { return message(r, seq) })
}

// criTree writes kubelet's layout, /var/log/pods/<ns>_<pod>_<uid>/<container>/0.log, under
// wl.root in CRI format, a line of body a record: 10 % of the lines on stderr, 5 % split by the
// runtime into P pieces and a final F.
func criTree(wl workload, r *rand.Rand, size int64, pods int, body func(seq int) string) (workload, error) {
	ws := make([]*writer, pods)
	for i := range ws {
		var err error
		path := filepath.Join(wl.root, fmt.Sprintf("shop_web-%d-7c9f_%08x-0000-4000-8000-%012x", i, i, i), "app", "0.log")
		if ws[i], err = create(path); err != nil {
			return wl, err
		}
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for wl.bytes < size {
		w := ws[wl.records%pods]
		at = at.Add(time.Duration(r.IntN(2000)) * time.Microsecond)
		ts := at.Format(time.RFC3339Nano)
		stream := "stdout"
		if r.IntN(10) == 0 {
			stream = "stderr"
		}
		msg := body(wl.records)
		before := w.bytes
		if strings.Contains(msg, "\n") { // a stack trace, a CRI line per line, on stderr
			for line := range strings.SplitSeq(msg, "\n") {
				if err := w.line("%s stderr F %s\n", ts, line); err != nil {
					return wl, err
				}
			}
			msg = ""
		} else if r.IntN(20) == 0 && len(msg) > 30 {
			// The runtime splits a long line into pieces; none ends in a space, which
			// file_log's container parser would trim.
			cut := 20 + r.IntN(len(msg)-25)
			for cut < len(msg)-1 && msg[cut-1] == ' ' {
				cut++
			}
			if err := w.line("%s %s P %s\n", ts, stream, msg[:cut]); err != nil {
				return wl, err
			}
			msg = msg[cut:]
		}
		if msg != "" {
			if err := w.line("%s %s F %s\n", ts, stream, msg); err != nil {
				return wl, err
			}
		}
		wl.bytes += w.bytes - before
		wl.records++
	}
	for _, w := range ws {
		if err := w.close(); err != nil {
			return wl, err
		}
	}
	return wl, nil
}

// plainTree writes files of one-line entries (an access log's shape) in a directory.
func plainTree(dir string, size int64, files int, seed uint64) (workload, error) {
	wl := workload{name: "plain", root: filepath.Join(dir, "plain")}
	r := rand.New(rand.NewPCG(seed, 2))
	err := writeFiles(&wl, files, size, func(w *writer, seq int) error {
		return w.line("10.0.%d.%d - - [01/Dec/2026:10:00:%02d +0000] \"GET /api/v1/items/%d HTTP/1.1\" 200 %d %s\n",
			r.IntN(256), r.IntN(256), seq%60, r.IntN(100000), r.IntN(50000), message(r, seq))
	})
	return wl, err
}

// multilineTree writes application logs whose entries start with a date; one in five is an
// error with a stack trace of 3–12 lines.
func multilineTree(dir string, size int64, files int, seed uint64) (workload, error) {
	wl := workload{name: "multiline", root: filepath.Join(dir, "multiline")}
	r := rand.New(rand.NewPCG(seed, 3))
	err := writeFiles(&wl, files, size, func(w *writer, seq int) error {
		level := "INFO"
		if r.IntN(5) == 0 {
			level = "ERROR"
		}
		if err := w.line("2026-12-01 10:00:%02d.%03d %s [worker-%d] %s\n", seq%60, r.IntN(1000), level, r.IntN(16), message(r, seq)); err != nil {
			return err
		}
		if level != "ERROR" {
			return nil
		}
		if err := w.line("java.lang.IllegalStateException: order %d in state SHIPPED\n", r.IntN(1e6)); err != nil {
			return err
		}
		for i := range 3 + r.IntN(10) {
			if err := w.line("\tat com.example.shop.OrderService.step%d(OrderService.java:%d)\n", i, 100+r.IntN(900)); err != nil {
				return err
			}
		}
		return nil
	})
	return wl, err
}

// writeFiles writes entries round robin into files app-<i>.log until size bytes.
func writeFiles(wl *workload, files int, size int64, entry func(w *writer, seq int) error) error {
	ws := make([]*writer, files)
	for i := range ws {
		var err error
		if ws[i], err = create(filepath.Join(wl.root, fmt.Sprintf("app-%d.log", i))); err != nil {
			return err
		}
	}
	for wl.bytes < size {
		w := ws[wl.records%files]
		before := w.bytes
		if err := entry(w, wl.records); err != nil {
			return err
		}
		wl.bytes += w.bytes - before
		wl.records++
	}
	for _, w := range ws {
		if err := w.close(); err != nil {
			return err
		}
	}
	return nil
}
