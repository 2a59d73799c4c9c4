// Package metadatatest checks a component's hand-written metadata against itself: its
// metadata.yaml (in mdatagen's format), the TelemetryBuilder of its internal/metadata package, and
// the telemetry table of its README. The three are kept in step by hand (the project does not run
// mdatagen); a component's metadata test calls these checks so that drift fails a test.
package metadatatest

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.yaml.in/yaml/v3"
)

// MetricPrefix is what the collector puts before the names metadata.yaml gives its metrics.
const MetricPrefix = "otelcol_"

// Metadata is the part of a metadata.yaml that the checks read.
type Metadata struct {
	DisplayName string `yaml:"display_name"`
	Type        string `yaml:"type"`
	Description string `yaml:"description"`
	Status      struct {
		Class         string              `yaml:"class"`
		Stability     map[string][]string `yaml:"stability"`
		Distributions []string            `yaml:"distributions"`
	} `yaml:"status"`
	Telemetry struct {
		Metrics map[string]Metric `yaml:"metrics"`
	} `yaml:"telemetry"`
	Attributes map[string]Attribute `yaml:"attributes"`
}

// Metric is one entry of telemetry.metrics.
type Metric struct {
	Enabled     bool     `yaml:"enabled"`
	Stability   string   `yaml:"stability"`
	Description string   `yaml:"description"`
	Unit        string   `yaml:"unit"`
	Attributes  []string `yaml:"attributes"`
	Sum         *struct {
		ValueType string `yaml:"value_type"`
		Monotonic bool   `yaml:"monotonic"`
	} `yaml:"sum"`
	Gauge *struct {
		ValueType string `yaml:"value_type"`
	} `yaml:"gauge"`
	Histogram *struct {
		ValueType        string    `yaml:"value_type"`
		BucketBoundaries []float64 `yaml:"bucket_boundaries"`
	} `yaml:"histogram"`
}

// Attribute is one entry of attributes.
type Attribute struct {
	Description string   `yaml:"description"`
	Type        string   `yaml:"type"`
	Enum        []string `yaml:"enum"`
}

// Read decodes the metadata.yaml at path; a key the decoder does not know fails the test, so that
// a misspelt key is not silently ignored.
func Read(t testing.TB, path string) Metadata {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var md Metadata
	if err := dec.Decode(&md); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return md
}

// CheckStatus checks the component's type and its stability for one signal against status.
func CheckStatus(t testing.TB, md Metadata, typ component.Type, signal string, level component.StabilityLevel) {
	t.Helper()
	if md.Type != typ.String() {
		t.Errorf("metadata.yaml type %q, code %q", md.Type, typ)
	}
	want := strings.ToLower(level.String())
	for stability, signals := range md.Status.Stability {
		if slices.Contains(signals, signal) && stability != want {
			t.Errorf("metadata.yaml: %s is %s, code says %s", signal, stability, want)
		}
	}
	if !slices.Contains(md.Status.Stability[want], signal) {
		t.Errorf("metadata.yaml: status.stability.%s does not list %s", want, signal)
	}
}

// Telemetry returns telemetry settings whose meter provider records into reader, for a
// component's TelemetryBuilder to record one value on each instrument before CheckTelemetry.
func Telemetry() (set component.TelemetrySettings, reader *sdkmetric.ManualReader) {
	reader = sdkmetric.NewManualReader()
	set = componenttest.NewNopTelemetrySettings()
	set.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	return set, reader
}

// CheckTelemetry collects what reader holds after a test recorded one value on each instrument
// of builder (a *TelemetryBuilder, read by reflection to count its instruments), and checks it
// against md: every instrument was recorded under scope, with the name, unit, description
// (mdatagen's: the yaml's followed by the stability, "… [Alpha]"), kind and attribute keys the
// yaml gives, and the yaml has no metric or attribute the code does not record.
func CheckTelemetry(t testing.TB, md Metadata, builder any, reader *sdkmetric.ManualReader, scope string) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var got []metricdata.Metrics
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != scope {
			t.Errorf("metrics under scope %q, want %q", sm.Scope.Name, scope)
		}
		got = append(got, sm.Metrics...)
	}
	if n := countInstruments(t, builder); len(got) != n {
		t.Errorf("the builder has %d instruments, %d recorded: record one value on each", n, len(got))
	}

	usedAttrs := map[string]bool{}
	seen := map[string]bool{}
	for _, m := range got {
		key, ok := strings.CutPrefix(m.Name, MetricPrefix)
		spec, inYAML := md.Telemetry.Metrics[key]
		if !ok || !inYAML {
			t.Errorf("%s: recorded, not in metadata.yaml", m.Name)
			continue
		}
		seen[key] = true
		if !spec.Enabled {
			t.Errorf("%s: recorded, but metadata.yaml has enabled: false", m.Name)
		}
		if m.Unit != spec.Unit {
			t.Errorf("%s: unit %q, metadata.yaml %q", m.Name, m.Unit, spec.Unit)
		}
		if want := spec.Description + " [" + stabilityTitle(spec.Stability) + "]"; m.Description != want {
			t.Errorf("%s: description\n\t%q\nmetadata.yaml gives\n\t%q", m.Name, m.Description, want)
		}
		checkKind(t, m, spec)
		for _, k := range spec.Attributes {
			usedAttrs[k] = true
		}
		for _, set := range attributeSets(m.Data) {
			checkAttributes(t, m.Name, set, spec.Attributes, md.Attributes)
		}
	}
	for key := range md.Telemetry.Metrics {
		if !seen[key] {
			t.Errorf("%s%s: in metadata.yaml, not recorded", MetricPrefix, key)
		}
	}
	for name := range md.Attributes {
		if !usedAttrs[name] {
			t.Errorf("attribute %q: in metadata.yaml, on no metric", name)
		}
	}
}

// CheckREADME checks that the table under the README's "## Telemetry" heading lists the
// metrics of md (with the otelcol_ prefix, in backquotes in the first column), each with the unit
// md gives it in the column headed "Unit" and, if the table has a column headed "Type", the
// instrument md implies (counter, updowncounter, gauge or histogram).
func CheckREADME(t testing.TB, md Metadata, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Telemetry\n")
	if !ok {
		t.Fatalf("%s: no \"## Telemetry\" section", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	unitCol, typeCol := -1, -1
	type row struct{ unit, typ string }
	listed := map[string]row{}
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if unitCol < 0 {
			unitCol, typeCol = slices.Index(cells, "Unit"), slices.Index(cells, "Type")
			continue
		}
		name, isName := strings.CutPrefix(cells[0], "`")
		if !isName || unitCol >= len(cells) || typeCol >= len(cells) {
			continue // the header's underline
		}
		name = strings.TrimSuffix(name, "`")
		if _, dup := listed[name]; dup {
			t.Errorf("%s: %s listed twice", path, name)
		}
		r := row{unit: strings.Trim(cells[unitCol], "`")}
		if typeCol >= 0 {
			r.typ = cells[typeCol]
		}
		listed[name] = r
	}
	if unitCol < 0 {
		t.Fatalf("%s: the telemetry table has no Unit column", path)
	}
	for key, spec := range md.Telemetry.Metrics {
		name := MetricPrefix + key
		r, ok := listed[name]
		switch {
		case !ok:
			t.Errorf("%s: telemetry table does not list %s", path, name)
		case r.unit != spec.Unit:
			t.Errorf("%s: %s has unit %q, metadata.yaml %q", path, name, r.unit, spec.Unit)
		case typeCol >= 0 && r.typ != instrument(spec):
			t.Errorf("%s: %s is a %s, metadata.yaml a %s", path, name, r.typ, instrument(spec))
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("%s: telemetry table lists %s, not in metadata.yaml", path, name)
	}
}

// instrument names the kind of instrument a metric's yaml entry implies.
func instrument(m Metric) string {
	switch {
	case m.Sum != nil && m.Sum.Monotonic:
		return "counter"
	case m.Sum != nil:
		return "updowncounter"
	case m.Gauge != nil:
		return "gauge"
	case m.Histogram != nil:
		return "histogram"
	}
	return "(none)"
}

// stabilityTitle is how mdatagen writes a stability level in a description: "[Development]".
func stabilityTitle(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// countInstruments counts the exported fields of *builder that hold an OpenTelemetry instrument.
func countInstruments(t testing.TB, builder any) int {
	t.Helper()
	v := reflect.ValueOf(builder)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		t.Fatalf("builder is %T, want a pointer to the TelemetryBuilder", builder)
	}
	n := 0
	for f := range v.Elem().Type().Fields() {
		if f.IsExported() && f.Type.PkgPath() == "go.opentelemetry.io/otel/metric" {
			n++
		}
	}
	return n
}

func checkKind(t testing.TB, m metricdata.Metrics, spec Metric) {
	t.Helper()
	var kind, valueType string
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		kind, valueType = "sum", "int"
		if spec.Sum != nil && d.IsMonotonic != spec.Sum.Monotonic {
			t.Errorf("%s: monotonic %v, metadata.yaml %v", m.Name, d.IsMonotonic, spec.Sum.Monotonic)
		}
	case metricdata.Sum[float64]:
		kind, valueType = "sum", "double"
		if spec.Sum != nil && d.IsMonotonic != spec.Sum.Monotonic {
			t.Errorf("%s: monotonic %v, metadata.yaml %v", m.Name, d.IsMonotonic, spec.Sum.Monotonic)
		}
	case metricdata.Gauge[int64]:
		kind, valueType = "gauge", "int"
	case metricdata.Gauge[float64]:
		kind, valueType = "gauge", "double"
	case metricdata.Histogram[int64]:
		kind, valueType = "histogram", "int"
		checkBounds(t, m.Name, d.DataPoints, spec)
	case metricdata.Histogram[float64]:
		kind, valueType = "histogram", "double"
		checkBounds(t, m.Name, d.DataPoints, spec)
	default:
		t.Errorf("%s: data %T, not a kind metadata.yaml describes", m.Name, m.Data)
		return
	}
	var wantKind, wantType string
	switch {
	case spec.Sum != nil:
		wantKind, wantType = "sum", spec.Sum.ValueType
	case spec.Gauge != nil:
		wantKind, wantType = "gauge", spec.Gauge.ValueType
	case spec.Histogram != nil:
		wantKind, wantType = "histogram", spec.Histogram.ValueType
	}
	if kind != wantKind || valueType != wantType {
		t.Errorf("%s: recorded as a %s of %s, metadata.yaml has a %s of %s", m.Name, kind, valueType, wantKind, wantType)
	}
}

func checkBounds[N int64 | float64](t testing.TB, name string, points []metricdata.HistogramDataPoint[N], spec Metric) {
	t.Helper()
	if spec.Histogram == nil || spec.Histogram.BucketBoundaries == nil {
		return
	}
	for _, p := range points {
		if !slices.Equal(p.Bounds, spec.Histogram.BucketBoundaries) {
			t.Errorf("%s: bucket boundaries %v, metadata.yaml %v", name, p.Bounds, spec.Histogram.BucketBoundaries)
		}
	}
}

// attributeSets returns the attribute set of each data point.
func attributeSets(data metricdata.Aggregation) []attribute.Set {
	var sets []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Sum[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	}
	return sets
}

// checkAttributes checks one data point's attributes: exactly the keys the metric lists, each
// of the type (and, with an enum, one of the values) the yaml's attributes section gives.
func checkAttributes(t testing.TB, metric string, set attribute.Set, keys []string, defs map[string]Attribute) {
	t.Helper()
	var got []string
	for _, kv := range set.ToSlice() {
		k := string(kv.Key)
		got = append(got, k)
		def, ok := defs[k]
		if !ok {
			t.Errorf("%s: attribute %q not in metadata.yaml's attributes", metric, k)
			continue
		}
		if typ := valueType(kv.Value.Type()); typ != def.Type {
			t.Errorf("%s: attribute %q is %s, metadata.yaml %s", metric, k, typ, def.Type)
		}
		if def.Enum != nil && !slices.Contains(def.Enum, kv.Value.String()) {
			t.Errorf("%s: attribute %q = %q, not in metadata.yaml's enum %v", metric, k, kv.Value.String(), def.Enum)
		}
	}
	want := slices.Sorted(slices.Values(keys))
	if !slices.Equal(got, want) { // ToSlice is sorted by key
		t.Errorf("%s: recorded with attributes %v, metadata.yaml lists %v", metric, got, want)
	}
}

// valueType names an attribute type as mdatagen's metadata.yaml does.
func valueType(t attribute.Type) string {
	switch t {
	case attribute.BOOL:
		return "bool"
	case attribute.INT64:
		return "int"
	case attribute.FLOAT64:
		return "double"
	case attribute.STRING:
		return "string"
	default:
		return t.String()
	}
}
