// Package metrictable builds a component's internal metrics from one table that says, for each
// metric, what users see: its name, kind, unit, description and attribute keys. The table stands
// where mdatagen's metadata.yaml and generated builder would (mdatagen is not served at the
// collector version this module builds on); metrictabletest checks a README's telemetry table
// against it.
package metrictable // import "github.com/mergelog/otelcol-mergelog/internal/metrictable"

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/metric"
)

// Kind is the instrument a metric is recorded with, as the READMEs' telemetry tables name it.
type Kind string

// The kinds, each with the field types New creates it into.
const (
	Counter       Kind = "counter"       // metric.Int64Counter
	UpDownCounter Kind = "updowncounter" // metric.Int64UpDownCounter
	Gauge         Kind = "gauge"         // metric.Int64Gauge, or metric.Float64Gauge for a fraction (of a second)
	Histogram     Kind = "histogram"     // metric.Float64Histogram
)

// The stabilities of the components' metrics, for a Table's Stability.
const (
	Development = component.StabilityLevelDevelopment
	Alpha       = component.StabilityLevelAlpha
)

// prefix starts the name of every internal metric of the collector.
const prefix = "otelcol_"

// DurationBuckets are the bucket boundaries, in seconds, of a histogram of waits from a
// millisecond to half a minute.
var DurationBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30}

// Table is a component's internal metrics, created into a B: a struct with one exported field
// per metric, named by Metric.Field and of its kind's type.
type Table[B any] struct {
	Scope string // the instrumentation scope they are recorded under
	// Stability of every metric: New ends each description with it, as mdatagen does
	// ("… [Alpha]").
	Stability component.StabilityLevel
	Metrics   []Metric
}

// Metric is one internal metric.
type Metric struct {
	Name        string // as users see it, from otelcol_
	Kind        Kind
	Unit        string
	Description string
	Attributes  []string  // the keys of the attributes it is recorded with
	Buckets     []float64 // a histogram's bucket boundaries
}

// Field is the name of the builder field a metric is created into, as mdatagen names it:
// otelcol_receiver_mergelog_files_open → ReceiverMergelogFilesOpen.
func (m Metric) Field() string {
	var b strings.Builder
	for word := range strings.SplitSeq(strings.TrimPrefix(m.Name, prefix), "_") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// New creates every metric's instrument under the table's scope into a new B. A metric without
// its field, a field of another kind, or a field left without a metric is an error.
func (t Table[B]) New(set component.TelemetrySettings) (*B, error) {
	b := new(B)
	v := reflect.ValueOf(b).Elem()
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("metrictable: %s is not a struct", v.Type())
	}
	meter := set.MeterProvider.Meter(t.Scope)
	var errs error
	named := map[string]bool{}
	for _, m := range t.Metrics {
		named[m.Field()] = true
		f := v.FieldByName(m.Field())
		if !f.IsValid() || !f.CanSet() {
			errs = errors.Join(errs, fmt.Errorf("%s: %s has no exported field %s", m.Name, v.Type(), m.Field()))
			continue
		}
		errs = errors.Join(errs, create(meter, m, t.Stability, f.Addr().Interface()))
	}
	for f := range v.Type().Fields() {
		if !named[f.Name] {
			errs = errors.Join(errs, fmt.Errorf("%s.%s: no metric in the table", v.Type(), f.Name))
		}
	}
	return b, errs
}

// kinds maps the field types New creates into to their kinds.
var kinds = map[reflect.Type]Kind{
	reflect.TypeFor[metric.Int64Counter]():       Counter,
	reflect.TypeFor[metric.Int64UpDownCounter](): UpDownCounter,
	reflect.TypeFor[metric.Int64Gauge]():         Gauge,
	reflect.TypeFor[metric.Float64Gauge]():       Gauge,
	reflect.TypeFor[metric.Float64Histogram]():   Histogram,
}

// create makes m's instrument, of the given stability, into field, a pointer to the builder's
// field.
func create(meter metric.Meter, m Metric, stability component.StabilityLevel, field any) error {
	kind, ok := kinds[reflect.TypeOf(field).Elem()]
	if !ok || kind != m.Kind {
		return fmt.Errorf("%s: the table says %s, field %s is a %s", m.Name, m.Kind, m.Field(), reflect.TypeOf(field).Elem())
	}
	desc := metric.WithDescription(m.Description + " [" + stability.String() + "]")
	unit := metric.WithUnit(m.Unit)
	var err error
	switch f := field.(type) {
	case *metric.Int64Counter:
		*f, err = meter.Int64Counter(m.Name, desc, unit)
	case *metric.Int64UpDownCounter:
		*f, err = meter.Int64UpDownCounter(m.Name, desc, unit)
	case *metric.Int64Gauge:
		*f, err = meter.Int64Gauge(m.Name, desc, unit)
	case *metric.Float64Gauge:
		*f, err = meter.Float64Gauge(m.Name, desc, unit)
	case *metric.Float64Histogram:
		opts := []metric.Float64HistogramOption{desc, unit}
		if m.Buckets != nil {
			opts = append(opts, metric.WithExplicitBucketBoundaries(m.Buckets...))
		}
		*f, err = meter.Float64Histogram(m.Name, opts...)
	}
	return err
}
