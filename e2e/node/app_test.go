package node

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// load is what every fake container writes.
type load struct {
	rate        int // lines per second
	longEvery   int // one line in longEvery is over maxLineSize (containerd writes it in pieces)
	longMax     int // the longest line
	stderrEvery int // one line in stderrEvery goes to stderr
}

// app is the process in one container: it writes numbered lines at a steady rate to its
// stdout and stderr FIFOs until its context ends. A FIFO blocks when containerd falls behind;
// the app then writes what it owes as soon as it can, so the rate written is measured (lines
// over time), not assumed.
type app struct {
	c       *container
	load    load
	rng     *rand.Rand
	written atomic.Int64 // lines written whole to a FIFO
	bytes   atomic.Int64
}

// tick is how often the app writes the lines it owes.
const tick = 10 * time.Millisecond

func (a *app) run(ctx context.Context) error {
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		due := int64(time.Since(start).Seconds() * float64(a.load.rate))
		for seq := a.written.Load(); seq < due && ctx.Err() == nil; seq++ {
			buf = append(lineText(buf[:0], a.c.id, int(seq), a.length(int(seq))), '\n')
			out := a.c.stdout
			if a.load.stderrEvery > 0 && seq%int64(a.load.stderrEvery) == 0 {
				out = a.c.stderr
			}
			if _, err := out.Write(buf); err != nil {
				return err
			}
			a.written.Add(1)
			a.bytes.Add(int64(len(buf)))
		}
	}
}

// length is line seq's: mostly short, one in longEvery between maxLineSize and longMax.
func (a *app) length(seq int) int {
	if a.load.longEvery > 0 && seq%a.load.longEvery == a.load.longEvery-1 {
		return maxLineSize + 1 + a.rng.IntN(a.load.longMax-maxLineSize)
	}
	return minLineSize + a.rng.IntN(200)
}
