// Package metrictabletest checks a component's metric table against its TelemetryBuilder and
// its README.
package metrictabletest // import "github.com/mergelog/otelcol-mergelog/internal/metrictable/metrictabletest"

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable"
)

// Check checks that table builds into its B (the component's TelemetryBuilder) and the README
// at path against table: the table under its
// "## Telemetry" heading lists exactly table's metrics (by name, in backquotes, in the first column), each
// with its unit in the column headed "Unit" and, where there is a column headed "Type", its
// kind; and the section names every attribute key of the metrics, in backquotes.
func Check[B any](t testing.TB, table metrictable.Table[B], path string) {
	t.Helper()
	if _, err := table.New(componenttest.NewNopTelemetrySettings()); err != nil {
		t.Error(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Telemetry\n")
	if !ok {
		t.Fatalf("%s: no \"## Telemetry\" section", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := readRows(t, path, section)
	for _, m := range table.Metrics {
		r, ok := rows[m.Name]
		switch {
		case !ok:
			t.Errorf("%s: the telemetry table does not list %s", path, m.Name)
		case r.unit != m.Unit:
			t.Errorf("%s: %s has unit %q, the metric table %q", path, m.Name, r.unit, m.Unit)
		case r.kind != "" && r.kind != string(m.Kind):
			t.Errorf("%s: %s is a %s, the metric table says %s", path, m.Name, r.kind, m.Kind)
		}
		delete(rows, m.Name)
		for _, key := range m.Attributes {
			if !strings.Contains(section, "`"+key+"`") {
				t.Errorf("%s: the telemetry section does not name %s's attribute `%s`", path, m.Name, key)
			}
		}
	}
	for name := range rows {
		t.Errorf("%s: the telemetry table lists %s, the metric table does not", path, name)
	}
}

// row is what a README's telemetry table says of a metric; kind is "" without a Type column.
type row struct{ unit, kind string }

// readRows reads the Markdown table of a telemetry section, by metric name.
func readRows(t testing.TB, path, section string) map[string]row {
	t.Helper()
	unitCol, kindCol := -1, -1
	rows := map[string]row{}
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if unitCol < 0 {
			unitCol, kindCol = slices.Index(cells, "Unit"), slices.Index(cells, "Type")
			if unitCol < 0 {
				t.Fatalf("%s: the telemetry table has no Unit column", path)
			}
			continue
		}
		name, isName := strings.CutPrefix(cells[0], "`")
		if !isName || unitCol >= len(cells) || kindCol >= len(cells) {
			continue // the header's underline
		}
		name = strings.TrimSuffix(name, "`")
		if _, dup := rows[name]; dup {
			t.Errorf("%s: %s listed twice", path, name)
		}
		r := row{unit: strings.Trim(cells[unitCol], "`")}
		if kindCol >= 0 {
			r.kind = cells[kindCol]
		}
		rows[name] = r
	}
	if unitCol < 0 {
		t.Fatalf("%s: no table in the telemetry section", path)
	}
	return rows
}
