package main

import (
	"os"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/stats"
)

// usage is the process's CPU time and peak RSS so far, from getrusage(RUSAGE_SELF).
type usage struct {
	cpu    time.Duration // user + sys, all threads
	maxRSS int64         // bytes
}

func (u *usage) read() {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err) // cannot fail for RUSAGE_SELF with a valid pointer
	}
	u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	u.maxRSS = ru.Maxrss << 10 // Linux reports KiB
}

// resetPeakRSS resets the kernel's peak RSS of this process (VmHWM, which ru_maxrss reports
// too), so that peakRSS reports the peak of one run rather than of the whole process. Linux
// only; elsewhere peakRSS falls back to ru_maxrss, the peak so far.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS returns this process's VmHWM, or fallback if it cannot be read.
func peakRSS(fallback int64) int64 {
	peak, err := stats.PeakRSS("/proc/self/status")
	if err != nil {
		return fallback
	}
	return peak
}

// heapSampler records the high-water mark of the heap in use (MemStats.HeapInuse: object
// spans plus their unused space), read through runtime/metrics, which does not stop the world.
type heapSampler struct {
	done chan struct{}
	max  chan uint64
}

func startHeapSampler(every time.Duration) *heapSampler {
	h := &heapSampler{done: make(chan struct{}), max: make(chan uint64, 1)}
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	read := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() + samples[1].Value.Uint64()
	}
	go func() {
		hw := read()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				hw = max(hw, read())
			case <-h.done:
				h.max <- max(hw, read())
				return
			}
		}
	}()
	return h
}

// stop ends the sampling and returns the high-water mark in bytes.
func (h *heapSampler) stop() uint64 {
	close(h.done)
	return <-h.max
}
