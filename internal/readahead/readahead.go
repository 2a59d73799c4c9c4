// Package readahead reads a stream ahead of its consumer in a goroutine, so
// that CPU-bound decompression of one input runs beside the work on others.
package readahead

import (
	"errors"
	"io"
	"sync"
)

// ErrClosed is returned by Read after Close.
var ErrClosed = errors.New("readahead: read after Close")

type chunk struct {
	buf []byte // filled part of a recycled buffer
	err error  // the error that ended the fill, after buf's data
}

// Reader delivers the bytes of a source that a goroutine reads into a fixed
// set of recycled buffers: no allocation per Read. Read and Close must be
// called from one goroutine.
type Reader struct {
	full    chan chunk
	free    chan []byte
	done    chan struct{}
	stopped sync.WaitGroup
	cur     chunk // being handed out by Read
	curBuf  []byte
	err     error // sticky, once cur's data is gone
}

// New starts reading src in a goroutine into nbufs buffers of bufSize bytes
// (at least 2 and 1 byte). A buffer is handed over once full or when src
// returns an error, so a slow pipe delivers late but never loses data; the
// error, io.EOF included, is returned by Read after all data before it.
//
// The goroutine is the only user of src until Close returns.
func New(src io.Reader, bufSize, nbufs int) *Reader {
	bufSize, nbufs = max(bufSize, 1), max(nbufs, 2)
	r := &Reader{
		full: make(chan chunk, nbufs),
		free: make(chan []byte, nbufs),
		done: make(chan struct{}),
	}
	for range nbufs {
		r.free <- make([]byte, bufSize)
	}
	r.stopped.Add(1)
	go r.fill(src)
	return r
}

func (r *Reader) fill(src io.Reader) {
	defer r.stopped.Done()
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.done:
			return
		}
		n, err := readFull(src, buf)
		select {
		case r.full <- chunk{buf[:n], err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// readFull fills buf unless src fails first. Unlike io.ReadFull it passes
// src's error on unchanged: an io.ErrUnexpectedEOF of a truncated stream
// must not be confused with a short last buffer.
func readFull(src io.Reader, buf []byte) (n int, err error) {
	for empty := 0; n < len(buf) && err == nil; {
		var k int
		k, err = src.Read(buf[n:])
		n += k
		if k > 0 {
			empty = 0
			continue
		}
		empty++
		if empty == 100 && err == nil {
			err = io.ErrNoProgress
		}
	}
	return n, err
}

// Read copies out the bytes read ahead, waiting for them if needed.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, r.err
	}
	for len(r.cur.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.cur.err != nil {
			r.err = r.cur.err
			continue
		}
		if r.curBuf != nil {
			r.free <- r.curBuf[:cap(r.curBuf)] // never blocks: the channel holds every buffer
		}
		r.cur = <-r.full
		r.curBuf = r.cur.buf
	}
	n := copy(p, r.cur.buf)
	r.cur.buf = r.cur.buf[n:]
	return n, nil
}

// Close stops the goroutine and waits until it no longer uses the source,
// which the caller may then close. It waits for a Read of the source in
// progress to return: a source that can block forever (a pipe) must be
// unblocked by the caller.
func (r *Reader) Close() error {
	if r.err == ErrClosed {
		return nil
	}
	close(r.done)
	r.stopped.Wait()
	r.cur, r.curBuf, r.err = chunk{}, nil, ErrClosed
	return nil
}
