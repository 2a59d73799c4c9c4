package fastops

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/adapter"
	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// diff runs one chain of operators both ways: by the fast path and by stanza's own operators
// (run by stanzachain as the receiver runs them, failures counted from their logs, output
// converted by ConvertEntries).
type diff struct {
	fast   *Chain
	stanza *stanzachain.Chain[int, int]
	outs   outputs
}

// outputs is the stanza chain's sink: what came out of the entry that went in.
type outputs []*stanza.Entry

func (o *outputs) Output(e *stanza.Entry, _ int, _ bool) { *o = append(*o, e) }
func (*outputs) Settle(int, bool)                        {}
func (*outputs) Split(in int) int                        { return in }

// newDiff builds both for ops; the fast path must cover them.
func newDiff(tb testing.TB, ops []operator.Config) *diff {
	tb.Helper()
	d := &diff{fast: New(ops, zap.NewNop())}
	require.NotNil(tb, d.fast, "the fast path covers %v", ops)
	var err error
	d.stanza, err = stanzachain.New[int, int](stanzachain.Config{Operators: ops}, component.TelemetrySettings{Logger: zap.NewNop()})
	require.NoError(tb, err)
	require.NoError(tb, d.stanza.Start())
	tb.Cleanup(func() { _ = d.stanza.Stop(&d.outs) })
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
		"log.file.name": "app.log", "log.file.path": "/var/log/app.log", "log.file.record_number": int64(7),
	}}
}

var diffObserved = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// stanzaRecords are the records stanza's operators make of in, and how many failures.
func (d *diff) stanzaRecords(in diffInput) ([]plog.LogRecord, int64) {
	e := stanza.New()
	e.Body = in.body
	e.Attributes = in.attrs
	e.ObservedTimestamp = diffObserved
	e.Timestamp = in.at
	d.outs = d.outs[:0]
	d.stanza.Process(context.Background(), &d.outs, e, stanzachain.Input[int, int]{})
	logs := adapter.ConvertEntries(d.outs, "", "")
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
	return out, d.stanza.TakeFailures()
}

// fastRecords is what the fast path makes of in, built as the receiver builds it.
func (d *diff) fastRecords(tb testing.TB, in diffInput) ([]plog.LogRecord, int64) {
	lr := plog.NewLogRecord()
	lr.Body().SetStr(in.body)
	require.NoError(tb, lr.Attributes().FromRaw(in.attrs))
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(diffObserved))
	if !in.at.IsZero() {
		lr.SetTimestamp(pcommon.NewTimestampFromTime(in.at))
	}
	ok := d.fast.Run(lr)
	n := d.fast.TakeFailures()
	if !ok {
		return nil, n
	}
	return []plog.LogRecord{lr}, n
}

// check runs in both ways and fails tb where the records or the failures differ. The
// attributes are compared as maps: ConvertEntries puts them in Go's map order.
func (d *diff) check(tb testing.TB, in diffInput) {
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
