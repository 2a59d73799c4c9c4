package mergelogreceiver

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/multiline"
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
	"github.com/mergelog/otelcol-mergelog/internal/textcoding"
	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/exprvalues"
)

// compiled is a Config made ready to run: patterns compiled, the timestamp parser built, the
// enumerations resolved. Validate and the receiver go through the same compile, so what
// validated is what runs.
type compiled struct {
	join        multiline.Config
	omitStart   *linestart.Matcher // with omit_pattern: cut from the start of each entry
	omitEnd     *linestart.Matcher // with omit_pattern: cut from the start of each entry's last line
	parser      *timestamp.Parser  // nil without a timestamp section
	compression decompress.Kind
	coding      textcoding.Coding
	ordering    *filetrack.Ordering // nil: every matched file is read
	resource    pcommon.Map
	attributes  exprvalues.Values
}

// compile compiles every part of c; an error names its key.
func (c *Config) compile() (*compiled, error) {
	p := &compiled{
		join: multiline.Config{
			MaxLines: c.Multiline.MaxLines,
			MaxBytes: c.logSize(),
			Truncate: c.MaxLogSizeBehavior == BehaviorTruncate,
		},
	}
	var err error
	if p.attributes, err = exprvalues.Attributes(c.Attributes); err != nil {
		return nil, fmt.Errorf("attributes: %w", err)
	}
	if p.resource, err = exprvalues.Resource(c.Resource, p.attributes); err != nil {
		return nil, fmt.Errorf("resource: %w", err)
	}
	patterns, err := c.Multiline.compile()
	if err != nil {
		return nil, fmt.Errorf("multiline: %w", err)
	}
	p.join.Start, p.join.Continue, p.join.End = patterns.start, patterns.cont, patterns.end
	p.join.Detect = patterns.detect
	if c.Multiline.OmitPattern {
		p.omitStart, p.omitEnd = p.join.Start, p.join.End
	}
	if c.Timestamp != nil {
		if p.parser, err = c.Timestamp.compile(); err != nil {
			return nil, fmt.Errorf("timestamp: %w", err)
		}
	}
	if p.compression, err = c.Compression.kind(); err != nil {
		return nil, fmt.Errorf("compression: %w", err)
	}
	if p.coding, err = textcoding.Resolve(string(c.Encoding)); err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	if p.ordering, err = c.OrderingCriteria.compile(); err != nil {
		return nil, fmt.Errorf("ordering_criteria: %w", err)
	}
	return p, nil
}

// validateValues compiles and renders what can be at start of attributes and resource.
func (c *Config) validateValues(errs *keyErrors) {
	attrs, err := exprvalues.Attributes(c.Attributes)
	errs.check("attributes", err)
	if err == nil {
		_, err = exprvalues.Resource(c.Resource, attrs)
		errs.check("resource", err)
	}
}

type patterns struct {
	start, cont, end *linestart.Matcher
	detect           stacktrace.Set
}

// compile compiles the multiline patterns and reads detect; an error names the key.
func (m *MultilineConfig) compile() (patterns, error) {
	var p patterns
	var errs keyErrors
	var err error
	p.detect, err = stacktrace.ParseSet(m.Detect)
	errs.check("detect", err)
	for _, x := range []struct {
		key, pattern string
		dst          **linestart.Matcher
	}{
		{"line_start_pattern", m.LineStartPattern, &p.start},
		{"line_continue_pattern", m.LineContinuePattern, &p.cont},
		{"line_end_pattern", m.LineEndPattern, &p.end},
	} {
		if x.pattern == "" {
			continue
		}
		*x.dst, err = linestart.Compile(x.pattern)
		errs.check(x.key, err)
	}
	return p, errs.join()
}

// compile builds the timestamp parser; an error names its key (format, layout, location, regex).
func (t *TimestampConfig) compile() (*timestamp.Parser, error) {
	if err := t.Format.validate(); err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	pc := timestamp.Config{Format: string(t.Format), Layout: t.Layout, Regex: t.Regex}
	if t.Layout != "" && pc.Format == "" {
		pc.Format = "layout"
	}
	if t.Location != "" {
		loc, err := time.LoadLocation(t.Location)
		if err != nil {
			return nil, fmt.Errorf("location: %w", err)
		}
		pc.Location = loc
	}
	parser, err := timestamp.New(pc)
	var ce *timestamp.ConfigError
	if errors.As(err, &ce) {
		return nil, fmt.Errorf("%s: %w", ce.Field, ce.Err)
	}
	return parser, err
}

// runtimePrefixRoom is what a container runtime's line may add to the log it carries (the
// prefix, JSON escapes), beyond max_log_size: the reader cuts lines only past it, so that a
// runtime's line is parsed whole and its log is what max_log_size caps.
const runtimePrefixRoom = 64 << 10

// maxLineSize is where the reader cuts a line.
func (c *Config) maxLineSize() int {
	if c.container() {
		return c.logSize() + runtimePrefixRoom
	}
	return c.logSize()
}
