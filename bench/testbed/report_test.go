package testbed

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Lines as the testbed's PerformanceResults writes them.
const sampleResults = `# Test PerformanceResults
Started: Thu, 03 Dec 2026 07:00:00 +0000

Test                                    |Result|Duration|CPU Avg%|CPU Max%|CPU Limit|RAM Avg MiB|RAM Max MiB|RAM Limit MiB|Sent Items|Received Items|
----------------------------------------|------|-------:|-------:|-------:|--------:|----------:|----------:|------------:|---------:|-------------:|
Log10kDPSFiles/1/filelog/filelog        |PASS  |     17s|     9.0|    10.0|      0.0|         60|         70|            0|    150000|        150000|
Log10kDPSFiles/1/filelog/mergelog       |PASS  |     17s|     6.0|     8.0|      0.0|         50|         80|            0|    150000|        150000|
Log10kDPSFiles/2/filelog/mergelog       |PASS  |     17s|    12.0|    14.0|      0.0|         52|         84|            0|    150000|        150000|
Log10kDPSFiles/2/filelog/filelog        |FAIL  |     17s|    11.0|    12.0|      0.0|         62|         72|            0|    150000|        149900|Received fewer items
Log10kDPSFiles/1/k8s_CRI-Containerd/filelog|PASS  |     17s|    20.0|    25.0|      0.0|         70|         75|            0|    150000|        150000|
OtherTest/1/filelog/filelog             |PASS  |     17s|     1.0|     1.0|      0.0|          1|          1|            0|         1|             1|

Total duration: 85s
`

func TestParseResults(t *testing.T) {
	runs, err := parseResults(strings.NewReader(sampleResults))
	require.NoError(t, err)
	require.Len(t, runs, 5)
	assert.Equal(t, run{
		caseName: "filelog", key: "filelog", passed: false,
		cpuAvg: 11, cpuMax: 12, ramAvg: 62, ramMax: 72, sent: 150000, received: 149900,
	}, runs[3])
	assert.Equal(t, "k8s_CRI-Containerd", runs[4].caseName)
}

func TestParseResultsShortLine(t *testing.T) {
	_, err := parseResults(strings.NewReader("Log10kDPSFiles/1/filelog/filelog|PASS|17s|9.0\n"))
	assert.Error(t, err)
}

func TestWriteReport(t *testing.T) {
	runs, err := parseResults(strings.NewReader(sampleResults))
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, writeReport(&out, fileCases, runs, "# title"))
	lines := strings.Split(out.String(), "\n")
	require.Len(t, lines, 3+len(fileCases)+2)
	// Medians of two runs each: CPU avg 10 vs 9, RAM avg 61 vs 51, RAM max 71 vs 82.
	assert.Equal(t, "| filelog | 2 / 2 | 10.0 / 11.0 | 9.0 / 11.0 | 0.90 | 61 / 71 | 51 / 82 | 0.84 | 1.15 | file_log 1, 100; mergelog 0, 0 |", lines[4])
	assert.Equal(t, "| k8s CRI-Containerd | 1 / 0 | 20.0 / 25.0 | 0.0 / 0.0 | – | 70 / 75 | 0 / 0 | – | – | none |", lines[8])
	assert.Equal(t, "| filelog checkpoints | 0 / 0 | 0.0 / 0.0 | 0.0 / 0.0 | – | 0 / 0 | 0 / 0 | – | – | none |", lines[5])
}

func TestMedian(t *testing.T) {
	assert.InDelta(t, 0.0, median(nil), 0)
	assert.InDelta(t, 3.0, median([]float64{5, 1, 3}), 0)
	assert.InDelta(t, 2.5, median([]float64{4, 1, 3, 2}), 0)
}
