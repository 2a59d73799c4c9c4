package testbed

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// testName is the name of the test running the cases, as the testbed's results give it
// (without "Test"); each run is testName/<round>/<case>/<receiver key>.
const testName = "Log10kDPSFiles"

// run is one line of the testbed's TESTRESULTS.md.
type run struct {
	caseName, key  string // the case as in the test's name (spaces as underscores), the receiver key
	passed         bool
	cpuAvg, cpuMax float64 // % of one core
	ramAvg, ramMax float64 // MiB of RSS
	sent, received uint64
}

// parseResults reads the runs of testName from the testbed's TESTRESULTS.md: a markdown table
// whose rows are test|result|duration|CPU avg|CPU max|CPU limit|RAM avg|RAM max|RAM limit|sent|
// received|error.
func parseResults(r io.Reader) ([]run, error) {
	var runs []run
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "|")
		name := strings.Split(strings.TrimSpace(fields[0]), "/")
		if len(name) != 4 || name[0] != testName {
			continue
		}
		if len(fields) < 11 {
			return nil, fmt.Errorf("result line with %d fields: %q", len(fields), sc.Text())
		}
		var nums [6]float64
		for i, f := range []int{3, 4, 6, 7, 9, 10} {
			v, err := strconv.ParseFloat(strings.TrimSpace(fields[f]), 64)
			if err != nil {
				return nil, fmt.Errorf("result line %q: field %d: %w", sc.Text(), f, err)
			}
			nums[i] = v
		}
		runs = append(runs, run{
			caseName: name[2], key: name[3],
			passed: strings.TrimSpace(fields[1]) == "PASS",
			cpuAvg: nums[0], cpuMax: nums[1], ramAvg: nums[2], ramMax: nums[3],
			sent: uint64(nums[4]), received: uint64(nums[5]),
		})
	}
	return runs, sc.Err()
}

// figures are the medians of a case's runs under one receiver.
type figures struct {
	runs, failed, lost             int
	cpuAvg, cpuMax, ramAvg, ramMax float64
}

func summarize(runs []run) figures {
	f := figures{runs: len(runs)}
	var cpuAvg, cpuMax, ramAvg, ramMax []float64
	for _, r := range runs {
		if !r.passed {
			f.failed++
		}
		if r.received < r.sent {
			f.lost += int(r.sent - r.received)
		}
		cpuAvg, cpuMax = append(cpuAvg, r.cpuAvg), append(cpuMax, r.cpuMax)
		ramAvg, ramMax = append(ramAvg, r.ramAvg), append(ramMax, r.ramMax)
	}
	f.cpuAvg, f.cpuMax, f.ramAvg, f.ramMax = median(cpuAvg), median(cpuMax), median(ramAvg), median(ramMax)
	return f
}

// median returns the median of v (0 for none); it sorts v. bench/internal/stats has one, but
// requiring the bench module would lift this module's collector to the bench module's version,
// which the testbed (v0.148.0) does not build with.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// writeReport writes, for each case in order, the figures of file_log and of mergelog and
// their ratios (mergelog / file_log): CPU average, RSS average and peak.
func writeReport(w io.Writer, cases []fileCase, runs []run, header string) error {
	fmt.Fprintf(w, "%s\n\n", header)
	fmt.Fprintln(w, "| case | runs | file_log CPU avg / max % | mergelog CPU avg / max % | CPU avg × "+
		"| file_log RAM avg / max MiB | mergelog RAM avg / max MiB | RAM avg × | RAM max × | failed, lost |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range cases {
		id := strings.ReplaceAll(c.name, " ", "_")
		var byKey [2][]run
		for _, r := range runs {
			if r.caseName != id {
				continue
			}
			switch r.key {
			case fileLogKey:
				byKey[0] = append(byKey[0], r)
			case mergelogKey:
				byKey[1] = append(byKey[1], r)
			}
		}
		fl, ml := summarize(byKey[0]), summarize(byKey[1])
		_, err := fmt.Fprintf(w, "| %s | %d / %d | %.1f / %.1f | %.1f / %.1f | %s | %.0f / %.0f | %.0f / %.0f | %s | %s | %s |\n",
			c.name, fl.runs, ml.runs,
			fl.cpuAvg, fl.cpuMax, ml.cpuAvg, ml.cpuMax, ratio(ml.cpuAvg, fl.cpuAvg),
			fl.ramAvg, fl.ramMax, ml.ramAvg, ml.ramMax, ratio(ml.ramAvg, fl.ramAvg), ratio(ml.ramMax, fl.ramMax),
			problems(fl, ml))
		if err != nil {
			return err
		}
	}
	return nil
}

// ratio is ours / theirs, or "–" where either has no figure.
func ratio(ours, theirs float64) string {
	if ours == 0 || theirs == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", ours/theirs)
}

// problems says which receiver's runs failed the testbed's checks or lost records.
func problems(fl, ml figures) string {
	if fl.failed+fl.lost+ml.failed+ml.lost == 0 {
		return "none"
	}
	return fmt.Sprintf("file_log %d, %d; mergelog %d, %d", fl.failed, fl.lost, ml.failed, ml.lost)
}
