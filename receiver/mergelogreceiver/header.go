package mergelogreceiver

import (
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// HeaderConfig is file_log's header: the lines at a file's start that match Pattern are its
// header, parsed by MetadataOperators (stanza operators, as file_log runs them) into attributes
// of every record of the file; the first line that does not match ends the header and is the
// first record.
type HeaderConfig struct {
	Pattern           string            `mapstructure:"pattern"`
	MetadataOperators []operator.Config `mapstructure:"metadata_operators"`
}

// Validate checks what file_log checks: the pattern compiles, and the operators build into a
// pipeline of which each operator processes and passes entries on (no filter).
func (h *HeaderConfig) Validate() error {
	p, err := newHeaderParser(h, component.TelemetrySettings{Logger: zap.NewNop()})
	if p != nil {
		return p.Stop()
	}
	return err
}

// newHeaderParser builds and starts the header's operators; nil without a header.
func newHeaderParser(h *HeaderConfig, set component.TelemetrySettings) (*stanzachain.Header, error) {
	if h == nil {
		return nil, nil
	}
	return stanzachain.NewHeader(h.Pattern, h.MetadataOperators, set)
}

// fileHeader is a file's header: what its lines gave so far, and whether it is still being read.
type fileHeader struct {
	attrs map[string]any
	open  bool // the lines read so far were all header lines
}

// headerLine takes a line of f while its header is open: a header line is parsed and not
// emitted (true); the first other line ends the header, and f's attributes get what it gave.
func (r *mergelogReceiver) headerLine(f *tailedFile, line []byte) bool {
	if r.header.Parse(r.ctx, line, f.header.attrs) {
		r.checkpoints.touch(f) // committed once nothing before it is still on its way
		return true
	}
	f.header.open = false
	r.setAttrs(f)
	return false
}

// startHeader sets up f's header. A file read from its start reads it with its lines. One read
// on from an offset (after a restart) has its header read again from the file's start up to
// that offset: the checkpoint holds offsets only, and the header is where it always was.
func (r *mergelogReceiver) startHeader(f *tailedFile) {
	if r.header == nil {
		return
	}
	f.header = &fileHeader{attrs: map[string]any{}, open: true}
	if f.file.Offset() == 0 {
		return
	}
	if err := r.rereadHeader(f); err != nil {
		r.set.Logger.Warn("Cannot read the file's header again; its records go on without the header's attributes",
			zap.String("path", f.file.Path()), zap.Error(err))
		f.header.open = false
	}
}

// rereadHeader parses the header lines of f's file before its offset.
func (r *mergelogReceiver) rereadHeader(f *tailedFile) error {
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
		BufSize: 4 << 10, MaxLineSize: r.cfg.maxLineSize(), Newline: r.compiled.coding.newline,
	})
	for {
		line, err := lr.Next()
		if err != nil {
			break // the offset is reached (a line end): the header may still be open
		}
		if r.read.decoder != nil {
			line = r.read.decoder.decode(line)
		}
		if !r.header.Parse(r.ctx, line, f.header.attrs) {
			f.header.open = false
			break
		}
	}
	return nil
}

// putHeader adds f's header attributes to m, over the log.file.* ones, as file_log does.
func (f *tailedFile) putHeader(m pcommon.Map) {
	if f.header == nil {
		return
	}
	for k, v := range f.header.attrs {
		if err := m.PutEmpty(k).FromRaw(v); err != nil {
			m.PutStr(k, fmt.Sprint(v))
		}
	}
}
