package multiline

import (
	"github.com/mergelog/otelcol-mergelog/internal/longbuf"
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
)

// detecting is the state of detect mode. While tentative, the open entry ends in lines the
// Detector called Maybe: the entry's text up to confirmedTo is what it has confirmed, and bounds
// marks where each later line ends.
type detecting struct {
	det          *stacktrace.Detector
	tentative    bool
	confirmedTo  int
	confirmedEnd int64
	// queue holds the lines to give the Detector again (queued marks where each ends), from
	// the one at next; spare is the other queue, which the next rejection fills.
	queue, spare   []byte
	queued, spared []bound
	next           int
}

// addDetected gives line to the Detector, and then the lines a rejection queued, if any.
func (j *Joiner) addDetected(line []byte, end int64) {
	j.step(line, end)
	j.drain()
}

// step adds one line as the Detector's verdict says.
func (j *Joiner) step(line []byte, end int64) {
	d := j.detect
	switch v := d.det.Next(line); {
	case j.lines == 0: // whatever the verdict, the line starts an entry
		j.add(line, end)
	case v == stacktrace.Join:
		d.tentative = false
		j.bounds = j.bounds[:0]
		j.add(line, end)
	case v == stacktrace.Maybe:
		if !d.tentative {
			d.tentative, d.confirmedTo, d.confirmedEnd = true, len(j.buf), j.end
		}
		j.add(line, end)
		if d.tentative && j.full > len(j.buf) {
			// Truncate dropped bytes of the Maybe lines: they can no longer be given again,
			// and stay in the entry, which is full.
			d.tentative = false
			j.bounds = j.bounds[:0]
		}
	case d.tentative:
		j.reject(line, end, true)
	default:
		j.emit()
		j.add(line, end)
	}
}

// reject emits the confirmed part of the open entry and queues its Maybe lines, then line (if
// has), in front of the lines still queued, for a Reset Detector: the first of them starts the
// next entry.
func (j *Joiner) reject(line []byte, end int64, has bool) {
	d := j.detect
	d.spare, d.spared = d.spare[:0], d.spared[:0]
	from := d.confirmedTo + 1
	for _, b := range j.bounds {
		d.spare = append(d.spare, j.buf[from:b.to]...)
		d.spared = append(d.spared, bound{to: len(d.spare), end: b.end})
		from = b.to + 1
	}
	if has {
		d.spare = append(d.spare, line...)
		d.spared = append(d.spared, bound{to: len(d.spare), end: end})
	}
	if d.next < len(d.queued) {
		from := d.queued[d.next-1].to // next > 0: the queue is being given again
		base := len(d.spare) - from
		d.spare = append(d.spare, d.queue[from:]...)
		for _, b := range d.queued[d.next:] {
			d.spared = append(d.spared, bound{to: b.to + base, end: b.end})
		}
	}
	d.queue, d.spare = d.spare, d.queue
	d.queued, d.spared = d.spared, d.queued
	d.next = 0

	j.out(j.buf[:d.confirmedTo], d.confirmedEnd)
	j.reset()
	d.det.Reset()
}

// drain gives the queued lines to the Detector, in order.
func (j *Joiner) drain() {
	d := j.detect
	for d.next < len(d.queued) {
		from := 0
		if d.next > 0 {
			from = d.queued[d.next-1].to
		}
		b := d.queued[d.next]
		d.next++
		j.step(d.queue[from:b.to], b.end)
	}
	d.queue, d.queued, d.next = d.queue[:0], d.queued[:0], 0
}

// flushDetected emits the open entry: without its Maybe lines, which no line confirmed, and
// which are given to the Detector again (and may leave Maybe lines again, until none is left).
func (j *Joiner) flushDetected() {
	for j.detect.tentative {
		j.reject(nil, 0, false)
		j.drain()
	}
	j.emit()
	j.detect.det.Reset()
}

// release drops the queues if they grew beyond longbuf.Keep (they are empty between Adds).
func (d *detecting) release() {
	if cap(d.queue)+cap(d.spare) > longbuf.Keep {
		d.queue, d.spare, d.queued, d.spared = nil, nil, nil, nil
	}
}
