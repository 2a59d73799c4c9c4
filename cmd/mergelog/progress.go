package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress prints a one-line status on stderr about once a second, only when stderr is a
// terminal (so redirected stderr and scripts get clean output).
type progress struct {
	w      io.Writer
	inputs []*input
	start  time.Time
	next   time.Time
	n      int64
	total  int64
}

func newProgress(enabled bool, w io.Writer, inputs []*input) *progress {
	if !enabled || !isTerminal(w) {
		return nil
	}
	p := &progress{w: w, inputs: inputs, start: time.Now(), next: time.Now().Add(time.Second)}
	for _, in := range inputs {
		p.total += in.size
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// tick is called per output entry; it looks at the clock only every 64Ki entries.
func (p *progress) tick() {
	if p == nil {
		return
	}
	p.n++
	if p.n&(1<<16-1) != 0 || time.Now().Before(p.next) {
		return
	}
	p.next = time.Now().Add(time.Second)
	p.print()
}

func (p *progress) print() {
	var read int64
	for _, in := range p.inputs {
		read += in.consumed()
	}
	pct := ""
	if p.total > 0 {
		pct = fmt.Sprintf(" %5.1f%%", 100*float64(read)/float64(p.total))
	}
	fmt.Fprintf(p.w, "\r%s %d lines, %d MB read, %s   ", pct, p.n, read>>20, time.Since(p.start).Round(time.Second))
}

func (p *progress) done() {
	if p == nil {
		return
	}
	p.print()
	fmt.Fprintln(p.w)
}
