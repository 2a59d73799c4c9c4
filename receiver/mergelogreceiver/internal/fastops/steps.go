package fastops

import (
	"errors"
	"regexp"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/helper"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/jsonparser"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/regex"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/severity"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/timeparser"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/add"
	copyop "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/copy"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/move"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/remove"

	"github.com/mergelog/otelcol-mergelog/internal/anchoredre"
)

// The errors of the steps: only that there is one matters (on_error), as in stanza.
var (
	errNoField   = errors.New("field does not exist")
	errNotString = errors.New("value is not a string")
	errNoMatch   = errors.New("regex pattern does not match")
)

// stepOf returns the step of an operator's config with its transformer options, when
// the operator and the options it has are covered.
func stepOf(b operator.Builder) (step, helper.TransformerConfig, bool) {
	switch c := b.(type) {
	case *jsonparser.Config:
		ps, ok := parserStepOf(c.ParserConfig, jsonValues{})
		return ps, c.TransformerConfig, ok && !c.ParseInts
	case *regex.Config:
		re, err := regexp.Compile(c.Regex)
		if err != nil || c.Cache.Size > 0 {
			return nil, c.TransformerConfig, false
		}
		values := &regexValues{re: re, names: re.SubexpNames(), dst: make([]int, 0, 2*(re.NumSubexp()+1))}
		values.m, _ = anchoredre.Compile(re)
		ps, ok := parserStepOf(c.ParserConfig, values)
		return ps, c.TransformerConfig, ok
	case *severity.Config:
		sev, ok := severityParseOf(&c.SeverityConfig)
		return sev, c.TransformerConfig, ok
	case *timeparser.Config:
		t, ok := timeParseOf(&c.TimeParser)
		return t, c.TransformerConfig, ok
	case *move.Config:
		from, ok := fieldOf(c.From)
		to, ok2 := fieldOf(c.To)
		return transferStep{from: from, to: to, move: true}, c.TransformerConfig, ok && ok2
	case *copyop.Config:
		from, ok := fieldOf(c.From)
		to, ok2 := fieldOf(c.To)
		return transferStep{from: from, to: to}, c.TransformerConfig, ok && ok2
	case *remove.Config:
		// A nil field is `attributes` or `resource` as a whole, not covered.
		if c.Field.FieldInterface == nil {
			return nil, c.TransformerConfig, false
		}
		f, ok := fieldOf(c.Field.Field)
		return removeStep{f}, c.TransformerConfig, ok
	case *add.Config:
		f, ok := fieldOf(c.Field)
		if s, isStr := c.Value.(string); !ok || c.Value == nil || isStr && strings.HasPrefix(s, "EXPR(") && strings.HasSuffix(s, ")") {
			return nil, c.TransformerConfig, false
		}
		v := pcommon.NewValueEmpty()
		if err := v.FromRaw(c.Value); err != nil {
			return nil, c.TransformerConfig, false
		}
		return addStep{field: f, value: v}, c.TransformerConfig, true
	}
	return nil, helper.TransformerConfig{}, false
}

// parserStep is stanza's ParserOperator around a parse of a string into attributes: from
// parse_from (the body or a top-level attribute) to the attributes, then its timestamp and
// severity; their errors come after both were tried, the attributes set either way.
type parserStep struct {
	from   field
	values valueParser
	time   *timeParse
	sev    *severityParse
}

// valueParser merges what it parses of a string into the attributes.
type valueParser interface {
	parseInto(c *Chain, s string, attrs pcommon.Map) error
}

// parserStepOf covers parse_from body or attributes.<key>, parse_to attributes, timestamp
// and severity from such fields; not body:, trace or scope_name.
func parserStepOf(p helper.ParserConfig, values valueParser) (*parserStep, bool) {
	from, ok := fieldOf(p.ParseFrom)
	if !ok || p.ParseTo.String() != stanza.NewAttributeField().String() || p.BodyField != nil ||
		p.TraceParser != nil || p.ScopeNameParser != nil {
		return nil, false
	}
	ps := &parserStep{from: from, values: values}
	if p.TimeParser != nil {
		if ps.time, ok = timeParseOf(p.TimeParser); !ok {
			return nil, false
		}
	}
	if p.SeverityConfig != nil {
		if ps.sev, ok = severityParseOf(p.SeverityConfig); !ok {
			return nil, false
		}
	}
	return ps, true
}

func (p *parserStep) run(c *Chain, lr plog.LogRecord) error {
	v, ok := p.from.get(lr)
	if !ok {
		return errNoField
	}
	if v.Type() != pcommon.ValueTypeStr {
		return errNotString
	}
	if err := p.values.parseInto(c, v.Str(), lr.Attributes()); err != nil {
		return err
	}
	var timeErr, sevErr error
	if p.time != nil {
		timeErr = p.time.run(c, lr)
	}
	if p.sev != nil {
		sevErr = p.sev.run(c, lr)
	}
	if timeErr != nil {
		return timeErr
	}
	return sevErr
}

type jsonValues struct{}

func (jsonValues) parseInto(c *Chain, s string, attrs pcommon.Map) error {
	return c.json.parseInto(s, attrs)
}

// regexValues are regex_parser's: each named group's match, "" when it did not take part.
// A pattern anchoredre covers goes through its matcher (regexp's very submatches, several
// times faster), into dst, the same slice for every line; the others through regexp.
type regexValues struct {
	re    *regexp.Regexp
	names []string
	m     *anchoredre.Matcher // nil when not covered
	dst   []int
}

func (r *regexValues) parseInto(_ *Chain, s string, attrs pcommon.Map) error {
	var m []int
	if r.m != nil {
		m = r.m.SubmatchIndex(s, r.dst)
	} else {
		m = r.re.FindStringSubmatchIndex(s)
	}
	if m == nil {
		return errNoMatch
	}
	attrs.EnsureCapacity(attrs.Len() + len(r.names) - 1)
	for i, name := range r.names {
		if i == 0 || name == "" {
			continue
		}
		v := ""
		if m[2*i] >= 0 {
			v = s[m[2*i]:m[2*i+1]]
		}
		attrs.PutStr(name, v)
	}
	return nil
}

// timeParse is a timestamp parse (time_parser, or a parser's timestamp): stanza's own
// TimeParser (layout types, locations, time_zone_locations, the year of yearless layouts) on
// the value, handed to it as the body of a scratch entry.
type timeParse struct {
	from   field
	parser helper.TimeParser
}

func timeParseOf(t *helper.TimeParser) (*timeParse, bool) {
	if t.ParseFrom == nil || t.LayoutType == helper.NativeKey {
		return nil, false
	}
	from, ok := fieldOf(*t.ParseFrom)
	if !ok {
		return nil, false
	}
	ft := &timeParse{from: from, parser: *t}
	body := stanza.NewBodyField()
	ft.parser.ParseFrom = &body
	return ft, ft.parser.Validate() == nil
}

func (t *timeParse) run(c *Chain, lr plog.LogRecord) error {
	v, ok := t.from.get(lr)
	if !ok {
		return errNoField
	}
	c.scratch.Body = v.AsRaw()
	if err := t.parser.Parse(c.scratch); err != nil {
		return err
	}
	// ConvertEntries leaves a zero time unset.
	if ts := c.scratch.Timestamp; ts.IsZero() {
		lr.SetTimestamp(0)
	} else {
		lr.SetTimestamp(pcommon.NewTimestampFromTime(ts))
	}
	return nil
}

// severityParse is a severity parse (severity_parser, or a parser's severity): stanza's own
// SeverityParser (presets, mapping, overwrite_text) on the value, as timeParse's.
type severityParse struct {
	from   field
	parser helper.SeverityParser
}

func severityParseOf(s *helper.SeverityConfig) (*severityParse, bool) {
	if s.ParseFrom == nil {
		return nil, false
	}
	from, ok := fieldOf(*s.ParseFrom)
	if !ok {
		return nil, false
	}
	cfg := *s
	body := stanza.NewBodyField()
	cfg.ParseFrom = &body
	p, err := cfg.Build(component.TelemetrySettings{})
	return &severityParse{from: from, parser: p}, err == nil
}

func (s *severityParse) run(c *Chain, lr plog.LogRecord) error {
	v, ok := s.from.get(lr)
	if !ok {
		return errNoField
	}
	c.scratch.Body = v.AsRaw()
	if err := s.parser.Parse(c.scratch); err != nil {
		return err
	}
	// Stanza's severities are pdata's numbers; ConvertEntries names one without a text.
	sev, text := c.scratch.Severity, c.scratch.SeverityText
	if text == "" && sev != stanza.Default {
		text = sev.String()
	}
	lr.SetSeverityNumber(plog.SeverityNumber(sev))
	lr.SetSeverityText(text)
	return nil
}

// transferStep is copy (from's value set at to as well), or move (taken out of from first).
type transferStep struct {
	from, to field
	move     bool
}

func (m transferStep) run(c *Chain, lr plog.LogRecord) error {
	v, ok := m.from.get(lr)
	if !ok {
		return errNoField
	}
	v.CopyTo(c.tmp)
	if m.move {
		_ = removeStep{m.from}.run(c, lr) // it is there: get found it
	}
	m.to.set(lr, c.tmp)
	return nil
}

// removeStep is remove: the body becomes empty, an attribute goes (an error when missing).
type removeStep struct{ field field }

func (m removeStep) run(c *Chain, lr plog.LogRecord) error {
	if m.field.body {
		c.empty.CopyTo(lr.Body())
		return nil
	}
	if !lr.Attributes().Remove(m.field.key) {
		return errNoField
	}
	return nil
}

// addStep is add with a static value (not EXPR(…)).
type addStep struct {
	field field
	value pcommon.Value
}

func (a addStep) run(_ *Chain, lr plog.LogRecord) error {
	a.field.set(lr, a.value)
	return nil
}
