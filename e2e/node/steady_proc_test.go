package node

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// procStat is what /proc says of a process at one moment.
type procStat struct {
	cpu             time.Duration // user and system time of all its threads
	rss, anon, peak int64         // VmRSS, RssAnon, VmHWM, bytes
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const userHZ = 100

// readProc reads a process's CPU time and memory from /proc.
func readProc(pid int) (procStat, error) {
	var s procStat
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return s, err
	}
	// The fields after the command name, which ends at the last ')': utime and stime are the
	// 14th and 15th of the line, the 12th and 13th after it.
	i := strings.LastIndexByte(string(stat), ')')
	fields := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(fields) < 13 {
		return s, fmt.Errorf("%s/stat: %q", dir, stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return s, fmt.Errorf("%s/stat: %w", dir, err)
		}
		ticks += n
	}
	s.cpu = time.Duration(ticks) * time.Second / userHZ
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return s, err
	}
	for line := range strings.Lines(string(status)) {
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var to *int64
		switch key {
		case "VmRSS":
			to = &s.rss
		case "RssAnon":
			to = &s.anon
		case "VmHWM":
			to = &s.peak
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil {
			return s, fmt.Errorf("%s/status: %s: %w", dir, key, err)
		}
		*to = kb << 10
	}
	return s, nil
}

// sampler reads a process's memory every second until ended: the average VmRSS of the samples
// and the highest RssAnon.
type sampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex
	rssSum   int64
	samples  int
	anonPeak int64
}

func startSampler(pid int) *sampler {
	s := &sampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *sampler) run() {
	defer close(s.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

func (s *sampler) sample() {
	st, err := readProc(s.pid)
	if err != nil {
		return // the process has ended: its samples so far stand
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rssSum += st.rss
	s.samples++
	s.anonPeak = max(s.anonPeak, st.anon)
}

// avgRSS is the average VmRSS of the samples so far.
func (s *sampler) avgRSS() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.samples == 0 {
		return 0
	}
	return s.rssSum / int64(s.samples)
}

// end stops the sampling, with one last sample, and returns the highest RssAnon.
func (s *sampler) end() int64 {
	close(s.stop)
	<-s.done
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.anonPeak
}
