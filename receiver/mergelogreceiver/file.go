package mergelogreceiver

import (
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/ledger"
	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/exprvalues"
)

// The attribute names of file_log (stanza's fileconsumer/attrs).
const (
	attrFileName         = "log.file.name"
	attrFilePath         = "log.file.path"
	attrFileNameResolved = "log.file.name_resolved"
	attrFilePathResolved = "log.file.path_resolved"
	attrRecordNumber     = "log.file.record_number"
)

// tailedFile is the receiver's side of one file the tracker follows (a filetrack.File): the
// streams its lines are joined in, its merge input, its attributes and resource, and where its
// reading is.
type tailedFile struct {
	file      *filetrack.File
	id        uint64
	streams   []*stream                  // one, or with format container one per output stream
	parser    *container.Parser          // with format container
	input     *mergewindow.Input[uint32] // nil without merge
	header    *fileHeader                // with a header section: what it gave, whether it is still read
	resource  *resourceGroup
	attrs     attrSet   // static and log.file.* attributes, copied into each record
	path      string    // the path attrs were built for
	records   int64     // record number of the last entry
	readEnd   int64     // end of the last line (or piece of a line) taken from the file
	lineEnd   int64     // end of the last whole line taken: where a commit may stop
	lineStart int64     // start of the line being taken, whose pieces may still come
	lastData  time.Time // when a line or partial-line byte last arrived (force_flush_period)
	partial   int       // length of the partial last line at lastData
	drained   bool      // Next reached io.EOF since the tracker last handed the file out
	done      bool      // read to its end: flushed, merge input finished
	blocked   bool      // holds max_held_per_file entries in the merge window
	queued    bool      // in reading.order
	idle      bool      // in reading.idle
	touched   bool      // settled entries since the last commit
	piece     bool      // the last line read was cut at max_log_size: the next continues it
	cut       cutLine   // with format container: the line the pieces belong to
	held      int       // bytes of entries not finished in its streams, as last counted
}

// attrSet is a set of record attributes and their size, for batch.max_bytes.
type attrSet struct {
	m         pcommon.Map
	bytes     int                // of m and of the attributes each record adds
	perRecord bool               // records get attributes of their own (see putPerRecord)
	offsets   bool               // include_file_record_offset: each record gets its offset in the file
	values    *exprvalues.Values // attributes whose expressions read the entry
}

// newAttrSet is the attributes m of a file's records, with the size of those each record adds.
func (r *mergelogReceiver) newAttrSet(m pcommon.Map) attrSet {
	a := attrSet{m: m, offsets: r.cfg.IncludeFileRecordOffset}
	if vs := &r.compiled.attributes; vs.PerEntry() > 0 {
		a.values = vs
		a.bytes += 16 * vs.PerEntry()
	}
	a.perRecord = a.offsets || a.values != nil
	if r.cfg.IncludeFileRecordNumber {
		a.bytes += len(attrRecordNumber) + 8
	}
	if a.offsets {
		a.bytes += len(attrRecordOffset) + 8
	}
	m.Range(func(k string, v pcommon.Value) bool {
		a.bytes += len(k) + len(v.Str())
		return true
	})
	return a
}

func (r *mergelogReceiver) newTailedFile(file *filetrack.File, now time.Time) *tailedFile {
	f := &tailedFile{file: file, id: file.ID(), lastData: now, records: file.Records(),
		readEnd: file.Offset(), lineEnd: file.Offset(), lineStart: file.Offset()}
	if r.cfg.container() {
		f.parser = &container.Parser{}
		for _, k := range []container.Stream{container.StreamNone, container.Stdout, container.Stderr} {
			f.streams = append(f.streams, r.newStream(f, k))
		}
	} else {
		f.streams = []*stream{r.newStream(f, container.StreamNone)}
	}
	if r.merge != nil {
		f.input = r.merge.window.AddInput()
	}
	r.startHeader(f)
	r.setAttrs(f)
	return f
}

// setAttrs builds the attributes and resource of f's records; a file moved by rotation keeps its
// identity and gets the attributes of its new path.
func (r *mergelogReceiver) setAttrs(f *tailedFile) {
	f.path = f.file.Path()
	m := pcommon.NewMap()
	r.compiled.attributes.Static.CopyTo(m)
	if r.cfg.IncludeFileName {
		m.PutStr(attrFileName, f.file.Name())
	}
	if r.cfg.IncludeFilePath {
		m.PutStr(attrFilePath, f.path)
	}
	if r.cfg.IncludeFileNameResolved || r.cfg.IncludeFilePathResolved {
		resolved := f.file.ResolvedPath()
		if r.cfg.IncludeFileNameResolved {
			m.PutStr(attrFileNameResolved, filepath.Base(resolved))
		}
		if r.cfg.IncludeFilePathResolved {
			m.PutStr(attrFilePathResolved, resolved)
		}
	}
	if r.cfg.wantsOwnership() {
		r.putOwnership(m, f.path)
	}
	f.putHeader(m)
	f.attrs = r.newAttrSet(m)
	for _, s := range f.streams {
		s.attrs = f.attrs
		if s.kind != container.StreamNone {
			sm := pcommon.NewMap()
			m.CopyTo(sm)
			sm.PutStr(attrIOStream, s.kind.String())
			s.attrs = r.newAttrSet(sm)
		}
	}
	r.read.resources.release(f.resource)
	f.resource = r.read.resources.of(f.path, r.cfg.container(), nativeContainer(r.cfg.Operators))
}

// midLine reports whether reading stopped inside a container line whose pieces are being
// joined. A read round reads such a file on to the line's end before leaving it, so that the
// pieces of lines already on disk are held for one file at a time, not for every file between
// two rounds (at most max_log_size more: a line is cut there).
func (f *tailedFile) midLine() bool {
	for _, s := range f.streams {
		if s.pieces != nil && s.pieces.Pending() {
			return true
		}
	}
	return false
}

// pending reports whether any stream of f holds bytes not yet emitted.
func (f *tailedFile) pending() bool {
	for _, s := range f.streams {
		if s.pending() {
			return true
		}
	}
	return false
}

// settled reports whether every entry read from f has settled.
func (f *tailedFile) settled() bool {
	for _, s := range f.streams {
		if !s.books.Entries.Empty() {
			return false
		}
	}
	return true
}

// committable returns the offset f may be committed to (the first byte a stream still needs,
// at most the end of the last whole line) and the number of records before it.
func (f *tailedFile) committable() ledger.Commit {
	c := ledger.Upto(f.lineEnd, f.records)
	for _, s := range f.streams {
		s.need(&c)
	}
	return c
}

// putPerRecord adds to m the attributes of e's record alone: its offset, and the attributes
// whose expressions read the entry.
func (a *attrSet) putPerRecord(m pcommon.Map, e *entry) {
	if a.offsets {
		m.PutInt(attrRecordOffset, e.start)
	}
	if a.values != nil {
		a.values.Render(e.body, m.PutStr)
	}
}

// putPerRecordRaw is putPerRecord for the stanza entry the operators get.
func (a *attrSet) putPerRecordRaw(m map[string]any, e *entry) {
	if a.offsets {
		m[attrRecordOffset] = e.start
	}
	if a.values != nil {
		a.values.Render(e.body, func(k, v string) { m[k] = v })
	}
}
