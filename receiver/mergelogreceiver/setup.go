package mergelogreceiver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
	"github.com/mergelog/otelcol-mergelog/internal/multiline"
	"github.com/mergelog/otelcol-mergelog/internal/textcoding"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// fileSetup gives a file the tracker hands out for the first time its state: its streams, merge
// input, header and attributes; and makes its attributes again when its path changes or its
// header ends.
type fileSetup struct {
	cfg       *Config
	compiled  *compiled
	resources resources
	header    *stanzachain.Header     // nil without a header section
	merge     *mergeStage             // nil without merge
	decoder   *textcoding.LineDecoder // encodings other than UTF-8: lines to UTF-8; nil otherwise
	emit      func(s *stream, text []byte, end int64)
	logger    *zap.Logger
}

// newFile is the state of file, first handed out at now.
func (fs *fileSetup) newFile(ctx context.Context, file *filetrack.File, now time.Time) *tailedFile {
	f := &tailedFile{file: file, id: file.ID(), lastData: now, records: file.Records(),
		at: place{readEnd: file.Offset(), lineEnd: file.Offset(), lineStart: file.Offset()}}
	if fs.cfg.container() {
		f.parser = &container.Parser{}
		for _, k := range []container.Stream{container.StreamNone, container.Stdout, container.Stderr} {
			f.streams = append(f.streams, fs.newStream(f, k))
		}
	} else {
		f.streams = []*stream{fs.newStream(f, container.StreamNone)}
	}
	f.input = fs.merge.addInput()
	fs.startHeader(ctx, f)
	fs.setAttrs(f)
	return f
}

// newStream is one of f's streams, for the lines of kind; its entries go to emit.
func (fs *fileSetup) newStream(f *tailedFile, kind container.Stream) *stream {
	s := &stream{f: f, kind: kind, logtags: kind != container.StreamNone && nativeContainer(fs.cfg.Operators)}
	s.joiner, _ = multiline.New(fs.compiled.join, func(text []byte, end int64) { fs.emit(s, text, end) }) // compiled
	if kind != container.StreamNone {
		s.pieces = container.NewReassembler(fs.compiled.join.MaxBytes, fs.compiled.join.Truncate, s.add)
	}
	return s
}

// setAttrs builds the attributes and resource of f's records; a file moved by rotation keeps its
// identity and gets the attributes of its new path.
func (fs *fileSetup) setAttrs(f *tailedFile) {
	f.path = f.file.Path()
	m := pcommon.NewMap()
	fs.compiled.attributes.Static.CopyTo(m)
	if fs.cfg.IncludeFileName {
		m.PutStr(attrFileName, f.file.Name())
	}
	if fs.cfg.IncludeFilePath {
		m.PutStr(attrFilePath, f.path)
	}
	if fs.cfg.IncludeFileNameResolved || fs.cfg.IncludeFilePathResolved {
		resolved := f.file.ResolvedPath()
		if fs.cfg.IncludeFileNameResolved {
			m.PutStr(attrFileNameResolved, filepath.Base(resolved))
		}
		if fs.cfg.IncludeFilePathResolved {
			m.PutStr(attrFilePathResolved, resolved)
		}
	}
	if fs.cfg.wantsOwnership() {
		putOwnership(m, f.path, fs.cfg, fs.logger)
	}
	f.putHeader(m)
	f.attrs = fs.newAttrSet(m)
	for _, s := range f.streams {
		s.attrs = f.attrs
		if s.kind != container.StreamNone {
			sm := pcommon.NewMap()
			m.CopyTo(sm)
			sm.PutStr(attrIOStream, s.kind.String())
			s.attrs = fs.newAttrSet(sm)
		}
	}
	fs.resources.release(f.resource)
	f.resource = fs.resources.of(f.path, fs.cfg.container(), nativeContainer(fs.cfg.Operators))
}

// newAttrSet is the attributes m of a file's records, with the size of those each record adds.
func (fs *fileSetup) newAttrSet(m pcommon.Map) attrSet {
	a := attrSet{m: m, offsets: fs.cfg.IncludeFileRecordOffset}
	if vs := &fs.compiled.attributes; vs.PerEntry() > 0 {
		a.values = vs
		a.bytes += 16 * vs.PerEntry()
	}
	a.perRecord = a.offsets || a.values != nil
	if fs.cfg.IncludeFileRecordNumber {
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

// headerLine takes a line of f while its header is open: a header line is parsed and not
// emitted (true); the first other line ends the header, and f's attributes get what it gave.
func (fs *fileSetup) headerLine(ctx context.Context, f *tailedFile, line []byte) bool {
	if fs.header.Parse(ctx, line, f.header.attrs) {
		return true
	}
	f.header.open = false
	fs.setAttrs(f)
	return false
}

// startHeader sets up f's header. A file read from its start reads it with its lines. One read
// on from an offset (after a restart) has its header read again from the file's start up to
// that offset: the checkpoint holds offsets only, and the header is where it always was.
func (fs *fileSetup) startHeader(ctx context.Context, f *tailedFile) {
	if fs.header == nil {
		return
	}
	f.header = &fileHeader{attrs: map[string]any{}, open: true}
	if f.file.Offset() == 0 {
		return
	}
	if err := fs.rereadHeader(ctx, f); err != nil {
		fs.logger.Warn("Cannot read the file's header again; its records go on without the header's attributes",
			zap.String("path", f.file.Path()), zap.Error(err))
		f.header.open = false
	}
}

// rereadHeader parses the header lines of f's file before its offset.
func (fs *fileSetup) rereadHeader(ctx context.Context, f *tailedFile) error {
	fd, err := os.Open(f.file.Path())
	if err != nil {
		return err
	}
	defer func() { _ = fd.Close() }() // read only: closing cannot lose anything
	var src io.Reader = fd
	if f.file.Kind() != decompress.Plain {
		dec, err := decompress.NewReaderKind(fd, f.file.Kind())
		if err != nil {
			return err
		}
		defer func() { _ = dec.Close() }() // releases decoder buffers only; never fails
		src = dec
	}
	lr := linereader.New(io.LimitReader(src, f.file.Offset()), linereader.Options{
		BufSize: 4 << 10, MaxLineSize: fs.cfg.maxLineSize(), Newline: fs.compiled.coding.Newline(),
	})
	for {
		line, err := lr.Next()
		if err != nil {
			break // the offset is reached (a line end): the header may still be open
		}
		if fs.decoder != nil {
			line = fs.decoder.Decode(line)
		}
		if !fs.header.Parse(ctx, line, f.header.attrs) {
			f.header.open = false
			break
		}
	}
	return nil
}
