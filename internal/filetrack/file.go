package filetrack

import (
	"path/filepath"
	"sync/atomic"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// File is an identity: one log stream, whichever files on disk hold it over
// time (renamed, copied, compressed). Its offsets count decompressed bytes.
// What it is (fingerprint, device and inode, path), which file on disk it is
// read from, and the polls' marks are the Tracker's; its reader is the reading
// state.
type File struct {
	id             uint64
	fp             []byte  // fingerprint; grows with a short file
	skipped        bool    // a compressed file skipped unread at the first poll
	key            fileKey // device and inode of the last source
	path, resolved string
	src            *diskFile // the file read; nil while there is none
	best           *diskFile // adopt's scratch
	r              reader
	committed      int64        // guarded by the Tracker's lock
	records        atomic.Int64 // the caller's record count at committed
	sizes          sourceSizes
	marks          pollMarks
}

// sourceSizes is what an identity saw of its sources, to count what of them was never read if
// they go away (see lose).
type sourceSizes struct {
	plain      int64 // the largest size seen of its plain sources
	compressed int64 // the size of its compressed source
	truncated  bool  // its last source was truncated or rewritten away from it
}

// pollMarks are the polls' bookkeeping of an identity.
type pollMarks struct {
	visited    uint64 // the last poll that visited it (see visits)
	lastSeen   uint64 // the last poll one of its files was seen (see forget)
	lastServed uint64 // the last poll that handed it out, PollHolding's aside
	handedOut  bool   // handed out by a poll, at least once
	chosen     bool   // allocate's: given a turn in this poll
	listed     bool   // allocate's: in this poll's result
	forgotten  bool
}

// newFile returns identity id, whose fingerprint is fp (copied, with room to grow to the
// fingerprint size) and whose source has key, read with what rs shares.
func newFile(rs *readers, id uint64, fp []byte, key fileKey) *File {
	f := &File{id: id, fp: append(make([]byte, 0, rs.fpSize), fp...), key: key}
	f.r.shared = rs
	f.r.checks.init()
	return f
}

// ID is stable for the life of the identity, across rotation, renaming,
// compression and restarts.
func (f *File) ID() uint64 { return f.id }

// Path is the path the identity is read from now (the last one known once
// it has no file).
func (f *File) Path() string { return f.path }

// ResolvedPath is Path with symbolic links resolved.
func (f *File) ResolvedPath() string { return f.resolved }

// Name is Path's base name.
func (f *File) Name() string { return filepath.Base(f.path) }

// Records is the caller's count of records up to the committed offset, as given to Commit
// (kept across restarts by the checkpoint), so that record numbers go on where they stopped.
func (f *File) Records() int64 { return f.records.Load() }

// Offset is where reading goes on: the end of the last line returned or partial consumed.
func (f *File) Offset() int64 { return f.r.off }

// Kind is the compression of the file read now; never Auto once handed out.
func (f *File) Kind() decompress.Kind { return f.r.kind }

// Finished reports that no more data will come: a compressed file read to
// its end, a deleted or rotated-away file read to its end, a file whose
// reading failed, or an identity whose files are gone.
func (f *File) Finished() bool { return f.r.done }

// Split reports whether the line last returned by Next is a piece of a line
// longer than MaxLineSize; the next line continues it.
func (f *File) Split() bool { return f.r.lr != nil && f.r.lr.Split() }

// Yield ends the caller's read round of f when it stops before io.EOF: the
// line reader goes back to the Tracker for the next file, so that the files
// waiting for their turn hold no buffer. A plain file reads its unreturned
// bytes again from Offset next time (it can seek). A compressed stream keeps
// its reader: its decoder is where the stream is, and what the reader holds
// could only be had again by decoding from the start; at most
// MaxConcurrentDecoders of them are read at once. The lines returned by Next
// are invalid after Yield.
func (f *File) Yield() { f.r.yield() }

// Next returns the next complete line, without its newline, and the offset
// just after it. At the end of the data available now it returns io.EOF:
// call it again after the next Poll. Any other error ends this file's
// reading; it is returned once, and the file is then Finished.
func (f *File) Next() (line []byte, end int64, err error) { return f.r.next(f.path) }

// Partial returns the bytes after the last newline buffered at the end of
// the available data, and the offset after them, for a force flush. It is
// meaningful after Next returned io.EOF.
func (f *File) Partial() (tail []byte, end int64) { return f.r.partial() }

// ConsumePartial marks the Partial bytes as delivered: reading goes on after
// them, and a later continuation of that line is read as a new line.
func (f *File) ConsumePartial() { f.r.consumePartial() }

// wants reports whether f has data to read.
func (f *File) wants() bool { return f.src != nil && f.r.wants(f.src.size) }
