package metrictable_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable"
)

var table = metrictable.Table[builder]{
	Scope:     "example.com/widgetreceiver",
	Stability: metrictable.Alpha,
	Metrics: []metrictable.Metric{
		{Name: "otelcol_widget_files_open", Kind: metrictable.Gauge, Unit: "{file}", Description: "Files open"},
		{Name: "otelcol_widget_bytes_read", Kind: metrictable.Counter, Unit: "By", Attributes: []string{"receiver"}, Description: "Bytes read"},
		{Name: "otelcol_widget_records_held", Kind: metrictable.UpDownCounter, Unit: "{record}", Description: "Records held"},
		{Name: "otelcol_widget_hold_duration", Kind: metrictable.Histogram, Unit: "s", Buckets: []float64{0.1, 1}, Description: "Longest hold"},
		{Name: "otelcol_widget_read_lag", Kind: metrictable.Gauge, Unit: "s", Description: "Lag"},
	},
}

type builder struct {
	WidgetFilesOpen    metric.Int64Gauge
	WidgetBytesRead    metric.Int64Counter
	WidgetRecordsHeld  metric.Int64UpDownCounter
	WidgetHoldDuration metric.Float64Histogram
	WidgetReadLag      metric.Float64Gauge
}

// What New creates is what the table says: name, description with the stability, unit, kind
// and buckets, under the table's scope.
func TestNew(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	set := componenttest.NewNopTelemetrySettings()
	set.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	b, err := table.New(set)
	require.NoError(t, err)

	ctx := context.Background()
	b.WidgetFilesOpen.Record(ctx, 3)
	b.WidgetBytesRead.Add(ctx, 10, metric.WithAttributes(attribute.String("receiver", "widget")))
	b.WidgetRecordsHeld.Add(ctx, -2)
	b.WidgetHoldDuration.Record(ctx, 0.5)
	b.WidgetReadLag.Record(ctx, 1.5)
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	assert.Equal(t, table.Scope, rm.ScopeMetrics[0].Scope.Name)

	got := map[string]metricdata.Metrics{}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		got[m.Name] = m
	}
	for _, m := range table.Metrics {
		assert.Equal(t, m.Description+" [Alpha]", got[m.Name].Description, m.Name)
		assert.Equal(t, m.Unit, got[m.Name].Unit, m.Name)
	}
	assert.IsType(t, metricdata.Gauge[int64]{}, got["otelcol_widget_files_open"].Data)
	assert.Equal(t, 1.5, got["otelcol_widget_read_lag"].Data.(metricdata.Gauge[float64]).DataPoints[0].Value)
	assert.True(t, got["otelcol_widget_bytes_read"].Data.(metricdata.Sum[int64]).IsMonotonic)
	assert.False(t, got["otelcol_widget_records_held"].Data.(metricdata.Sum[int64]).IsMonotonic)
	assert.Equal(t, []float64{0.1, 1}, got["otelcol_widget_hold_duration"].Data.(metricdata.Histogram[float64]).DataPoints[0].Bounds)
}

func TestNewRefusesATableAndBuilderThatDisagree(t *testing.T) {
	set := componenttest.NewNopTelemetrySettings()
	for _, tc := range []struct {
		name string
		edit func(*metrictable.Table[builder])
		want string
	}{
		{"a metric without its field", func(t *metrictable.Table[builder]) {
			t.Metrics = append(t.Metrics, metrictable.Metric{Name: "otelcol_widget_lines_cut", Kind: metrictable.Counter})
		}, "otelcol_widget_lines_cut: metrictable_test.builder has no exported field WidgetLinesCut"},
		{"a field without its metric", func(t *metrictable.Table[builder]) {
			t.Metrics = t.Metrics[1:]
		}, "metrictable_test.builder.WidgetFilesOpen: no metric in the table"},
		{"another kind", func(t *metrictable.Table[builder]) {
			t.Metrics[1].Kind = metrictable.Gauge
		}, "otelcol_widget_bytes_read: the table says gauge, field WidgetBytesRead is a metric.Int64Counter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := table
			tab.Metrics = append([]metrictable.Metric(nil), table.Metrics...)
			tc.edit(&tab)
			_, err := tab.New(set)
			assert.EqualError(t, err, tc.want)
		})
	}
	_, err := metrictable.Table[int]{}.New(set)
	assert.EqualError(t, err, "metrictable: int is not a struct")
}

func TestField(t *testing.T) {
	m := metrictable.Metric{Name: "otelcol_receiver_mergelog_split_lines_unjoined"}
	assert.Equal(t, "ReceiverMergelogSplitLinesUnjoined", m.Field())
}
