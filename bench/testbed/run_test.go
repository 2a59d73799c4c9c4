package testbed

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	tb "github.com/open-telemetry/opentelemetry-collector-contrib/testbed/testbed"
	"github.com/stretchr/testify/require"
)

// The environment of a run (`make bench-testbed` sets them):
//   - TESTBED_OTELCOL: the collector to run, a build with both receivers (without it, the cases
//     are skipped);
//   - TESTBED_RESULTS: the directory the testbed writes its results/ into (default: a new
//     temporary directory);
//   - TESTBED_REPORT: where the comparison goes (default: report.md there);
//   - TESTBED_RUNS: how many times each case runs under each receiver (default 1), alternating
//     which goes first; the report gives the medians;
//   - TESTCASE_DURATION: the testbed's own, how long the load runs (default 15s).
const (
	otelcolEnv = "TESTBED_OTELCOL"
	resultsEnv = "TESTBED_RESULTS"
	reportEnv  = "TESTBED_REPORT"
	runsEnv    = "TESTBED_RUNS"
)

// summary collects the runs' figures into results/TESTRESULTS.md, as the testbed's tests do.
var summary = &tb.PerformanceResults{}

func TestMain(m *testing.M) {
	if os.Getenv(otelcolEnv) == "" {
		os.Exit(m.Run())
	}
	code, err := runTestbed(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// runTestbed runs the tests in the results directory, the testbed's data files under it, and
// writes the report from the testbed's results.
func runTestbed(m *testing.M) (int, error) {
	exe, err := filepath.Abs(os.Getenv(otelcolEnv))
	if err != nil {
		return 0, err
	}
	// The cases read the absolute path back.
	if err := os.Setenv(otelcolEnv, exe); err != nil {
		return 0, err
	}
	dir := os.Getenv(resultsEnv)
	if dir == "" {
		if dir, err = os.MkdirTemp("", "testbed-results-"); err != nil {
			return 0, err
		}
	}
	report := os.Getenv(reportEnv)
	if report == "" {
		report = filepath.Join(dir, "report.md")
	}
	if report, err = filepath.Abs(report); err != nil {
		return 0, err
	}
	// The testbed writes results/ under the working directory, and the container-log writers
	// their files under os.TempDir, which nothing removes.
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	if err := os.Chdir(dir); err != nil {
		return 0, err
	}
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return 0, err
	}
	if err := tb.Start(summary); err != nil {
		return 0, err
	}
	code := m.Run()
	tb.SaveResults(summary)
	return code, reportResults(filepath.Join("results", "TESTRESULTS.md"), report, exe)
}

// reportResults writes the comparison of the runs in the testbed's results file to report.
func reportResults(results, report, exe string) error {
	in, err := os.ReadFile(results)
	if err != nil {
		return err
	}
	runs, err := parseResults(bytes.NewReader(in))
	if err != nil {
		return err
	}
	out, err := os.Create(report)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# contrib's testbed (v0.148.0) TestLog10kDPS file cases: file_log vs mergelog\n\n"+
		"%s as the testbed's child process at GOMAXPROCS=2, 10 000 logs/s, the same receiver config under "+
		"each key; CPU in %% of one core and RSS in MiB as the testbed measures them, medians of the runs; "+
		"× is mergelog / file_log.", filepath.Base(exe))
	if err := writeReport(out, fileCases, runs, header); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func TestLog10kDPSFiles(t *testing.T) {
	exe := os.Getenv(otelcolEnv)
	if exe == "" {
		t.Skip(otelcolEnv + " is not set: no collector to run")
	}
	runs := 1
	if s := os.Getenv(runsEnv); s != "" {
		var err error
		runs, err = strconv.Atoi(s)
		require.NoError(t, err, runsEnv)
	}
	for round := 1; round <= runs; round++ {
		keys := []string{fileLogKey, mergelogKey}
		if round%2 == 0 {
			slices.Reverse(keys)
		}
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			for _, c := range fileCases {
				t.Run(c.name, func(t *testing.T) {
					for _, key := range keys {
						t.Run(key, func(t *testing.T) { runCase(t, exe, c, key) })
					}
				})
			}
		})
	}
}

// runCase is the testbed's 10k-items-a-second scenario: the load runs for the test case's
// duration, then every record must reach the backend, within the case's CPU and RAM limits.
func runCase(t *testing.T, exe string, c fileCase, key string) {
	sender, extensions := c.sender(t)
	if key != fileLogKey {
		renamed, err := renameReceiver(sender, key)
		require.NoError(t, err)
		sender = renamed
	}
	backend := tb.NewOTLPDataReceiver(freePort(t))
	resultDir, err := filepath.Abs(filepath.Join("results", t.Name()))
	require.NoError(t, err)

	agent := tb.NewChildProcessCollector(tb.WithAgentExePath(exe), tb.WithEnvVar("GOMAXPROCS", "2"))
	config := collectorConfig(sender, backend, resultDir, extensions)
	cleanup, err := agent.PrepareConfig(t, config)
	require.NoError(t, err)
	defer cleanup()

	load := tb.LoadOptions{DataItemsPerSecond: 10_000, ItemsPerBatch: 100, Parallel: 1}
	tc := tb.NewTestCase(t, tb.NewPerfTestDataProvider(load), sender, backend, agent,
		&tb.PerfTestValidator{}, summary, tb.WithResourceLimits(c.limits))
	t.Cleanup(tc.Stop)
	// Kept beside the run's logs and profile (the testbed removes its copy).
	require.NoError(t, os.WriteFile(filepath.Join(resultDir, "config.yaml"), []byte(config), 0o644))

	tc.StartBackend()
	tc.StartAgent()
	tc.StartLoad(load)
	tc.WaitFor(func() bool { return tc.LoadGenerator.DataItemsSent() > 0 }, "load generator started")
	tc.Sleep(tc.Duration)
	tc.StopLoad()
	tc.WaitFor(func() bool { return tc.LoadGenerator.DataItemsSent() == tc.MockBackend.DataItemsReceived() },
		"all data items received")
	tc.ValidateData()
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}
