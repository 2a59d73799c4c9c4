package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
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
		return p.stop()
	}
	return err
}

// headerParser runs the metadata operators on header lines. Stanza's parsers emit before
// Process returns, so what a line gave is known when it returns.
type headerParser struct {
	pattern *regexp.Regexp
	pipe    *pipeline.DirectedPipeline
	first   operator.Operator
	out     *terminal
	taken   []*stanza.Entry
}

// newHeaderParser builds and starts the header's operators; nil without a header.
func newHeaderParser(h *HeaderConfig, set component.TelemetrySettings) (*headerParser, error) {
	if h == nil {
		return nil, nil
	}
	pattern, err := regexp.Compile(h.Pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern: %w", err)
	}
	if len(h.MetadataOperators) == 0 {
		return nil, errors.New("metadata_operators: at least one operator is needed")
	}
	out, err := newTerminal(set)
	if err != nil {
		return nil, err
	}
	pipe, err := pipeline.Config{Operators: h.MetadataOperators, DefaultOutput: out}.Build(set)
	if err != nil {
		return nil, fmt.Errorf("metadata_operators: %w", err)
	}
	p := &headerParser{pattern: pattern, pipe: pipe, out: out}
	for _, op := range pipe.Operators() {
		switch {
		case op == operator.Operator(out):
			continue
		case op.ID() == h.MetadataOperators[0].ID():
			p.first = op
		}
		switch {
		case !op.CanProcess():
			return nil, fmt.Errorf("metadata_operators: operator '%s' cannot process entries", op.ID())
		case !op.CanOutput():
			return nil, fmt.Errorf("metadata_operators: operator '%s' does not propagate entries", op.ID())
		case op.Type() == "filter":
			return nil, errors.New("metadata_operators: an operator of type filter is not allowed")
		}
	}
	if err := pipe.Start(nil); err != nil {
		return nil, fmt.Errorf("metadata_operators: %w", err)
	}
	return p, nil
}

func (p *headerParser) stop() error {
	if p == nil {
		return nil
	}
	return p.pipe.Stop()
}

// parse runs the operators on a header line and adds the attributes they set to attrs, later
// lines' over earlier ones', as file_log copies them; false when the line is not a header line.
func (p *headerParser) parse(ctx context.Context, line []byte, attrs map[string]any) bool {
	text := string(line)
	if !p.pattern.MatchString(text) {
		return false
	}
	e := stanza.New()
	e.Body = text
	_ = p.first.Process(ctx, e) // a failure is logged by the operator, and on_error applied
	outs := p.out.take(p.taken[:0])
	for _, o := range outs {
		maps.Copy(attrs, o.Attributes)
	}
	clear(outs)
	p.taken = outs
	return true
}

// fileHeader is a file's header: what its lines gave so far, and whether it is still being read.
type fileHeader struct {
	attrs map[string]any
	open  bool // the lines read so far were all header lines
}

// headerLine takes a line of f while its header is open: a header line is parsed and not
// emitted (true); the first other line ends the header, and f's attributes get what it gave.
func (r *mergelogReceiver) headerLine(f *tailedFile, line []byte) bool {
	if r.header.parse(r.ctx, line, f.header.attrs) {
		r.out.touch(f) // committed once nothing before it is still on its way
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
		if !r.header.parse(r.ctx, line, f.header.attrs) {
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
