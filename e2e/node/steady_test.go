package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/logs"
)

// steadyLoad is the workload of one run of the steady-state benchmark.
type steadyLoad struct {
	rate     int // lines per second, all pods together
	pods     int
	duration time.Duration // of the writing (the window), whole seconds
}

// steadyResult is one agent's run.
type steadyResult struct {
	agent      string
	load       steadyLoad
	rate       float64 // lines per second as written
	bytes      int64
	late       int64 // pod-seconds whose lines took over a second to write
	tally      seqTally
	cores      float64       // CPU time over the window / the window
	cpuAll     time.Duration // CPU time from the window's start to the last line's arrival
	peak       int64         // VmHWM
	avgRSS     int64         // VmRSS, sampled every second over the window
	anonPeak   int64         // RssAnon, highest sample until the last line arrived
	catchUp    time.Duration // from the end of the writing to the last line's arrival
	incomplete bool          // the gateway stopped receiving before it had every line
	rotations  int
	logPath    string
}

// The bounds of the wait for the gateway after the writing: it is taken to have all it will get
// once it received nothing for steadyQuiet (Fluent Bit's Flush and Refresh_Interval are far
// shorter) or steadyPatience passed.
const (
	steadyQuiet    = 30 * time.Second
	steadyPatience = 5 * time.Minute
	// steadySettle is how long an agent runs before the window: its start-up is not counted.
	steadySettle = 3 * time.Second
)

// kubelet's rotation on the benchmark's node: its defaults, 10Mi, 5 files, every 10 s.
const (
	steadyMaxSize  = "10Mi"
	steadyMaxFiles = 5
	steadyMonitor  = 10 * time.Second
)

// runSteady runs the workload once with agent sa reading it: the pods' lines written through
// containerd's CRI loggers, rotated by kubelet's log manager, the agent sending to a gateway.
func runSteady(ctx context.Context, dir string, sa steadyAgent, load steadyLoad, seed uint64) (res steadyResult, err error) {
	res = steadyResult{agent: sa.name, load: load}
	pods := filepath.Join(dir, "pods")
	g, err := startSeqGateway()
	if err != nil {
		return res, err
	}
	defer g.stop()
	j, err := newJournal(filepath.Join(dir, "files.log"), pods)
	if err != nil {
		return res, err
	}
	defer j.close()
	rt := newCRIRuntime()
	defer rt.removeAll()
	mgr, err := logs.NewContainerLogManager(rt, journalOS{j: j}, steadyMaxSize, steadyMaxFiles, 1, metav1.Duration{Duration: steadyMonitor})
	if err != nil {
		return res, err
	}
	gens, err := startGenPods(rt, j, dir, pods, load, seed)
	if err != nil {
		return res, err
	}
	stopped := false
	defer func() {
		if !stopped {
			for _, p := range gens {
				p.c.stop()
			}
		}
	}()
	a, err := sa.start(dir, pods, g)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, a.stop()) }()
	res.logPath = a.logPath
	time.Sleep(steadySettle)
	pid := a.cmd.Process.Pid
	before, err := readProc(pid)
	if err != nil {
		return res, fmt.Errorf("%s: %w; see %s", sa.name, err, a.logPath)
	}
	smp := startSampler(pid)
	mgr.Start(context.WithoutCancel(ctx)) // its goroutines find nothing once rt is emptied

	start := time.Now()
	seconds := int(load.duration / time.Second)
	var wg sync.WaitGroup
	errs := make([]error, len(gens))
	for i, p := range gens {
		// The pods' seconds begin at different moments, as independent pods' do.
		wg.Go(func() {
			errs[i] = p.run(ctx, start.Add(time.Duration(i)*time.Second/time.Duration(len(gens))), seconds)
		})
	}
	wg.Wait()
	window := time.Since(start)
	end, err := readProc(pid)
	if err != nil {
		return res, fmt.Errorf("%s ended in the window: %w; see %s", sa.name, err, a.logPath)
	}
	res.cores = (end.cpu - before.cpu).Seconds() / window.Seconds()
	res.avgRSS = smp.avgRSS()
	written := make([]int, len(gens))
	total := 0
	for i, p := range gens {
		p.c.stop()
		written[i] = int(p.written.Load())
		total += written[i]
		res.bytes += p.bytes.Load()
		res.late += p.late.Load()
		res.rotations += p.c.reopens - 1
	}
	stopped = true
	rt.removeAll()
	ended := time.Now()
	res.rate = float64(total) / window.Seconds()
	res.incomplete = !waitSeqGateway(g, total, ended)
	_, last := g.arrived()
	res.catchUp = max(0, last.Sub(ended))
	final, err := readProc(pid)
	if err != nil {
		return res, fmt.Errorf("%s ended: %w; see %s", sa.name, err, a.logPath)
	}
	res.anonPeak = max(smp.end(), final.anon)
	res.cpuAll, res.peak = final.cpu-before.cpu, final.peak
	res.tally = g.tally(written)
	return res, errors.Join(errs...)
}

// startGenPods starts load.pods containers, one per pod, each with its generator, and adds
// them to rt.
func startGenPods(rt *criRuntime, j *journal, dir, pods string, load steadyLoad, seed uint64) ([]*genPod, error) {
	cs, err := startPods(rt, j, dir, load.pods, func(i int) (string, string, string) {
		pod := fmt.Sprintf("bench_log-generator-%02d_00000000-0000-0000-0000-0000000001%02d", i, i)
		return fmt.Sprintf("g%02d", i), "log-generator", filepath.Join(pods, pod, "log-generator", "0.log")
	})
	if err != nil {
		return nil, err
	}
	gens := make([]*genPod, len(cs))
	for i, c := range cs {
		gens[i] = newGenPod(c, i, load.pods, load.rate/load.pods, seed)
	}
	return gens, nil
}

// waitSeqGateway waits until g has total distinct lines, or received nothing for steadyQuiet,
// or steadyPatience passed since ended, and reports whether it has them all.
func waitSeqGateway(g *seqGateway, total int, ended time.Time) bool {
	for {
		n, last := g.arrived()
		if n >= total {
			return true
		}
		if last.Before(ended) {
			last = ended
		}
		if time.Since(last) > steadyQuiet || time.Since(ended) > steadyPatience {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}
