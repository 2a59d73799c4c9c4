package mergelogreceiver

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	yaml "go.yaml.in/yaml/v3"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/adapter"
	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"
)

// fastDiff runs one chain of operators both ways: by the fast path and by stanza's own
// operators (pipeline built as newChain builds it, output converted by ConvertEntries).
type fastDiff struct {
	fast     *fastChain
	first    operator.Operator
	out      *terminal
	failures *atomic.Int64 // stanza's, counted from its logs as the receiver counts them
}

// newFastDiff decodes ops (YAML) as the collector would and builds both; the fast path must
// cover them.
func newFastDiff(tb testing.TB, ops string) *fastDiff {
	tb.Helper()
	var raw []any
	require.NoError(tb, yaml.Unmarshal([]byte(ops), &raw))
	cfg := createDefaultConfig().(*Config)
	require.NoError(tb, confmap.NewFromStringMap(map[string]any{"operators": raw}).Unmarshal(cfg))
	d := &fastDiff{failures: &atomic.Int64{}}
	d.fast = newFastChain(cfg.Operators, false, zap.NewNop())
	require.NotNil(tb, d.fast, "the fast path covers %s", ops)
	set := component.TelemetrySettings{Logger: zap.New(&failureCounter{Core: zapcore.NewNopCore(), failures: d.failures})}
	var err error
	d.out, err = newTerminal(set)
	require.NoError(tb, err)
	pipe, err := pipeline.Config{Operators: cfg.Operators, DefaultOutput: d.out}.Build(set)
	require.NoError(tb, err)
	require.NoError(tb, pipe.Start(nil))
	tb.Cleanup(func() { _ = pipe.Stop() })
	for _, op := range pipe.Operators() {
		if op.ID() == cfg.Operators[0].ID() {
			d.first = op
		}
	}
	return d
}

// diffInput is an entry as the receiver builds it: a body, the file's attributes and the
// record number, a timestamp when one was found.
type diffInput struct {
	body  string
	attrs map[string]any
	at    time.Time
}

func fileInput(body string) diffInput {
	return diffInput{body: body, attrs: map[string]any{
		"log.file.name": "app.log", "log.file.path": "/var/log/app.log", attrRecordNumber: int64(7),
	}}
}

var diffObserved = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// stanzaRecords are the records stanza's operators make of in, and how many failures.
func (d *fastDiff) stanzaRecords(in diffInput) ([]plog.LogRecord, int64) {
	e := stanza.New()
	e.Body = in.body
	e.Attributes = in.attrs
	e.ObservedTimestamp = diffObserved
	e.Timestamp = in.at
	_ = d.first.Process(context.Background(), e)
	logs := adapter.ConvertEntries(d.out.take(nil), "", "")
	var out []plog.LogRecord
	for i := range logs.ResourceLogs().Len() {
		sls := logs.ResourceLogs().At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				out = append(out, lrs.At(k))
			}
		}
	}
	return out, d.failures.Swap(0)
}

// fastRecords is what the fast path makes of in, built as toFastChain builds it.
func (d *fastDiff) fastRecords(tb testing.TB, in diffInput) ([]plog.LogRecord, int64) {
	lr := plog.NewLogRecord()
	lr.Body().SetStr(in.body)
	require.NoError(tb, lr.Attributes().FromRaw(in.attrs))
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(diffObserved))
	if !in.at.IsZero() {
		lr.SetTimestamp(pcommon.NewTimestampFromTime(in.at))
	}
	ok := d.fast.run(lr)
	n := d.fast.failed
	d.fast.failed = 0
	if !ok {
		return nil, n
	}
	return []plog.LogRecord{lr}, n
}

// check runs in both ways and fails tb where the records or the failures differ. The
// attributes are compared as maps: ConvertEntries puts them in Go's map order.
func (d *fastDiff) check(tb testing.TB, in diffInput) {
	tb.Helper()
	fastIn := in
	fastIn.attrs = copyRaw(in.attrs)
	want, wantFailed := d.stanzaRecords(in)
	got, gotFailed := d.fastRecords(tb, fastIn)
	require.Equal(tb, wantFailed, gotFailed, "failures, body %q", in.body)
	require.Len(tb, got, len(want), "records, body %q", in.body)
	for i := range want {
		w, g := want[i], got[i]
		require.Equal(tb, w.Body().Type(), g.Body().Type(), "body type, body %q", in.body)
		if !reflect.DeepEqual(w.Body().AsRaw(), g.Body().AsRaw()) {
			tb.Fatalf("body %q: body\nstanza %#v\nfast   %#v", in.body, w.Body().AsRaw(), g.Body().AsRaw())
		}
		if !reflect.DeepEqual(w.Attributes().AsRaw(), g.Attributes().AsRaw()) {
			tb.Fatalf("body %q: attributes\nstanza %#v\nfast   %#v", in.body, w.Attributes().AsRaw(), g.Attributes().AsRaw())
		}
		require.Equal(tb, w.Timestamp(), g.Timestamp(), "timestamp, body %q", in.body)
		require.Equal(tb, w.ObservedTimestamp(), g.ObservedTimestamp(), "observed, body %q", in.body)
		require.Equal(tb, w.SeverityNumber(), g.SeverityNumber(), "severity, body %q", in.body)
		require.Equal(tb, w.SeverityText(), g.SeverityText(), "severity text, body %q", in.body)
		require.Equal(tb, w.TraceID(), g.TraceID())
		require.Equal(tb, w.SpanID(), g.SpanID())
		require.Equal(tb, w.Flags(), g.Flags())
	}
}

// copyRaw copies the top level of an entry's attributes: stanza's operators change the map.
func copyRaw(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
