package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/stats"
)

// result is one run of one agent pipeline on one workload.
type result struct {
	cpu  time.Duration // agent CPU (user + sys) until the gateway had every record
	wall time.Duration // from the agent's start to the last new record
	// busy is the agent's CPU ÷ wall during the catch-up, from the first record's arrival to
	// the last's: how far delivery is bound by CPU rather than by acknowledgements.
	busy       float64
	peakRSS    int64 // VmHWM
	wire       int64 // request bytes on the wire
	total      int   // records received, duplicates included
	unique     int
	duplicates int
	err        error
}

// limits are the settings every collector variant runs with: GOMAXPROCS as the DaemonSet sets
// it, and one GOMEMLIMIT for all (-gomemlimit says why it is not the DaemonSet's).
type limits struct {
	gomaxprocs string
	gomemlimit string
}

// runAgent runs the collector with configs until the gateway has every record of wl (or
// timeout), measuring the agent process.
func runAgent(otelcol string, configs, extraArgs []string, lim limits, gw *gateway, wl workload, timeout time.Duration, logPath string) result {
	gw.expect(wl.records, wl.copies)
	var args []string
	for _, c := range configs {
		args = append(args, "--config", c)
	}
	args = append(args, extraArgs...)
	cmd := exec.Command(otelcol, args...)
	cmd.Env = append(os.Environ(),
		"GOMAXPROCS="+lim.gomaxprocs, "GOMEMLIMIT="+lim.gomemlimit,
		"K8S_NODE_NAME=bench-node", "K8S_POD_IP=127.0.0.1", "K8S_NAMESPACE=otel")
	logFile, err := os.Create(logPath)
	if err != nil {
		return result{err: err}
	}
	defer func() { _ = logFile.Close() }() // the agent's own log, only read by a person
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var res result
	var firstCPU time.Duration
	select {
	case <-gw.started:
		firstCPU, _, _ = procUsage(cmd.Process.Pid)
	case <-time.After(timeout):
	case err := <-exited:
		exited <- err
	}
	select {
	case <-gw.complete:
		res.cpu, res.peakRSS, res.err = procUsage(cmd.Process.Pid)
	case err := <-exited:
		total, unique, _ := gw.counts()
		return result{err: fmt.Errorf("agent exited early (%v) with %d of %d records; see %s", err, unique, wl.records, logPath), total: total, unique: unique}
	case <-time.After(timeout):
		_, unique, _ := gw.counts()
		res.err = fmt.Errorf("timeout after %s with %d of %d records; see %s", timeout, unique, wl.records, logPath)
	}
	gw.mu.Lock()
	res.wall = gw.last.Sub(start)
	if span := gw.last.Sub(gw.first); span > 0 {
		res.busy = (res.cpu - firstCPU).Seconds() / span.Seconds()
	}
	gw.mu.Unlock()
	res.wire = gw.wire.Load()
	// What arrives while the agent stops counts too: a duplicate is a duplicate.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil && res.err == nil {
			res.err = fmt.Errorf("agent stopped with %v; see %s", err, logPath)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		if res.err == nil {
			res.err = fmt.Errorf("agent did not stop within 30 s of SIGTERM; see %s", logPath)
		}
		<-exited //nolint:errcheck // killed: its exit status says nothing more
	}
	total, unique, noSeq := gw.counts()
	res.total, res.unique, res.duplicates = total, unique, total-unique-noSeq
	if res.err == nil && unique != wl.records {
		res.err = fmt.Errorf("%d of %d records arrived", unique, wl.records)
	}
	if res.err == nil && noSeq > 0 {
		res.err = fmt.Errorf("%d records without a seq of the workload (bodies changed?)", noSeq)
	}
	if res.err == nil && res.duplicates < 0 {
		res.err = fmt.Errorf("records arrived with fewer than %d seqs each (an attribute parsed from the body missing?)", max(1, wl.copies))
	}
	return res
}

// procUsage reads a process's CPU time (utime + stime) and peak RSS from /proc.
func procUsage(pid int) (cpu time.Duration, peak int64, err error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	const ticks = 100 // USER_HZ on Linux
	cpu = time.Duration(utime+stime) * time.Second / ticks
	peak, err = stats.PeakRSS("/proc/" + strconv.Itoa(pid) + "/status")
	return cpu, peak, err
}
