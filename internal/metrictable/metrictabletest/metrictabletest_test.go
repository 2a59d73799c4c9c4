package metrictabletest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable"
	"github.com/mergelog/otelcol-mergelog/internal/metrictable/metrictabletest"
)

type builder struct {
	WidgetFilesOpen metric.Int64Gauge
	WidgetBytesRead metric.Int64Counter
}

var table = metrictable.Table[builder]{Scope: "example.com/widgetreceiver", Stability: metrictable.Alpha, Metrics: []metrictable.Metric{
	{Name: "otelcol_widget_files_open", Kind: metrictable.Gauge, Unit: "{file}", Description: "Files open"},
	{Name: "otelcol_widget_bytes_read", Kind: metrictable.Counter, Unit: "By", Attributes: []string{"receiver"}, Description: "Bytes read"},
}}

const readme = "# Widget\n\n## Telemetry\n\nWith the attribute `receiver`:\n\n" +
	"| Metric | Type | Unit | Meaning |\n| --- | --- | --- | --- |\n" +
	"| `otelcol_widget_files_open` | gauge | `{file}` | files open |\n" +
	"| `otelcol_widget_bytes_read` | counter | `By` | bytes read |\n" +
	"\n## Next\n\n| `otelcol_widget_elsewhere` | gauge | `s` | outside the section |\n"

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"agrees", "", "", nil},
		{"a metric missing", "| `otelcol_widget_files_open` | gauge | `{file}` | files open |\n", "",
			[]string{"the telemetry table does not list otelcol_widget_files_open"}},
		{"another unit", "`By`", "`{byte}`", []string{`otelcol_widget_bytes_read has unit "{byte}", the metric table "By"`}},
		{"another kind", "| gauge |", "| counter |", []string{"otelcol_widget_files_open is a counter, the metric table says gauge"}},
		{"a metric too many", "\n\n## Next", "\n| `otelcol_widget_extra` | gauge | `s` | more |\n\n## Next",
			[]string{"the telemetry table lists otelcol_widget_extra, the metric table does not"}},
		{"an attribute not named", "`receiver`", "receiver",
			[]string{"the telemetry section does not name otelcol_widget_bytes_read's attribute `receiver`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := readme
			if tc.old != "" {
				require.Contains(t, text, tc.old)
				text = strings.Replace(text, tc.old, tc.new, 1)
			}
			path := filepath.Join(t.TempDir(), "README.md")
			require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
			f := &failures{TB: t}
			metrictabletest.Check(f, table, path)
			var want []string
			for _, w := range tc.want {
				want = append(want, path+": "+w)
			}
			assert.Equal(t, want, f.errors)
		})
	}
}

// A table that does not build into its builder fails the check.
func TestCheckBuilds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	require.NoError(t, os.WriteFile(path, []byte(readme), 0o600))
	f := &failures{TB: t}
	wrong := metrictable.Table[builder]{Metrics: []metrictable.Metric{
		table.Metrics[0],
		{Name: "otelcol_widget_bytes_read", Kind: metrictable.Gauge, Unit: "By", Attributes: []string{"receiver"}},
	}}
	metrictabletest.Check(f, wrong, path)
	assert.Equal(t, []string{
		"otelcol_widget_bytes_read: the table says gauge, field WidgetBytesRead is a metric.Int64Counter",
		path + ": otelcol_widget_bytes_read is a counter, the metric table says gauge",
	}, f.errors)
}

// failures is a testing.TB that keeps its errors instead of failing the test.
type failures struct {
	testing.TB
	errors []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *failures) Error(args ...any) { f.errors = append(f.errors, fmt.Sprint(args...)) }
