package node

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/logs"
)

// setting is one configuration of the node: kubelet's rotation, the containers and what they
// write, and how often the agents are killed.
type setting struct {
	name       string
	maxSize    string        // containerLogMaxSize
	maxFiles   int           // containerLogMaxFiles
	monitor    time.Duration // containerLogMonitorInterval
	containers int
	load       load
	duration   time.Duration // of the writing
	kills      int           // SIGKILLs of each agent while the containers write; the last as kubelet rotates
}

// outcome is one agent's part of a run.
type outcome struct {
	agent      string
	tally      tally
	cpu        time.Duration
	peak       int64
	kills      int
	catchUp    time.Duration // from the end of the writing to the last line's arrival
	incomplete bool          // the gateway stopped receiving before it had every line
	metrics    string        // the receiver's own metrics at the end (the shipped agent's)
	logPath    string
}

// runStats are a run's figures besides the agents'.
type runStats struct {
	written   map[string]int // lines by container
	bytes     int64
	rate      float64 // lines per second, all containers, as written
	rotations int     // kubelet's reopens of the containers' logs
}

// runAgents names the agents of every run and their base configs.
var runAgents = []struct{ name, config string }{
	{"mergelog", shippedConfig},
	{"file_log", presetConfig},
}

// The bounds of the wait for the gateways: one that stops receiving for quiet is taken to have
// all it will get; none waits longer than patience after the writing ended. Both are far
// beyond a healthy agent's pauses, so that only loss (or a hang) reaches them.
const (
	quiet    = 30 * time.Second
	patience = 10 * time.Minute
)

// runNode runs s once in dir: kubelet's log manager rotating the files containerd's loggers
// write for s.containers fake containers, both agents reading them, each to its gateway.
func runNode(ctx context.Context, dir string, s setting, seed uint64) (runStats, []outcome, error) {
	pods := filepath.Join(dir, "pods")
	var (
		gws    []*gateway
		agents []*agent
	)
	defer func() {
		for _, g := range gws {
			g.stop()
		}
		for _, a := range agents {
			_ = a.stop() // already stopped unless the run failed
		}
	}()
	for _, ra := range runAgents {
		g, err := startGateway(nil)
		if err != nil {
			return runStats{}, nil, err
		}
		gws = append(gws, g)
		a, err := startRunAgent(dir, ra.name, ra.config, pods, g.addr)
		if err != nil {
			return runStats{}, nil, err
		}
		agents = append(agents, a)
	}

	j, err := newJournal(filepath.Join(dir, "files.log"), pods)
	if err != nil {
		return runStats{}, nil, err
	}
	defer j.close()
	rt := newCRIRuntime()
	defer rt.removeAll()
	mgr, err := logs.NewContainerLogManager(rt, journalOS{j: j}, s.maxSize, s.maxFiles, 1, metav1.Duration{Duration: s.monitor})
	if err != nil {
		return runStats{}, nil, err
	}
	apps, err := startApps(rt, j, dir, pods, s, seed)
	if err != nil {
		return runStats{}, nil, err
	}
	// The manager's goroutines run for good (it has no stop): once the run has removed its
	// containers from rt, they find nothing to rotate.
	mgr.Start(context.WithoutCancel(ctx))

	stats, err := writeAndKill(ctx, rt, apps, agents, s, seed)
	if err != nil {
		return stats, nil, err
	}
	ended := time.Now()
	var outs []outcome
	for i, g := range gws {
		done := waitGateway(g, stats.written, ended)
		o := outcome{agent: agents[i].name, kills: agents[i].kills, incomplete: !done, logPath: agents[i].logPath}
		_, last := g.complete(stats.written)
		o.catchUp = max(0, last.Sub(ended))
		if agents[i].promPort != 0 {
			o.metrics, _ = agents[i].metrics("otelcol_receiver_mergelog_") // a failed scrape leaves it empty
		}
		outs = append(outs, o)
	}
	for i, a := range agents {
		if err := a.stop(); err != nil {
			return stats, nil, err
		}
		outs[i].cpu, outs[i].peak = a.cpu, a.peak
		outs[i].tally = gws[i].tally(stats.written)
	}
	return stats, outs, nil
}

// startRunAgent starts agent name with its base config rewritten for the run (agentConfigs) and
// the files extra merged over it.
func startRunAgent(dir, name, config, pods, gatewayAddr string, extra ...string) (*agent, error) {
	healthPort, err := freePort()
	if err != nil {
		return nil, err
	}
	promPort, err := freePort()
	if err != nil {
		return nil, err
	}
	configs, err := agentConfigs(dir, name, config, pods, gatewayAddr, healthPort, promPort)
	if err != nil {
		return nil, err
	}
	configs = append(configs, extra...)
	// A diagnosis run may change the shipped agent's config: NODE_AGENT_CONFIG names a file
	// merged over it (say, watch.enabled false).
	if diag := os.Getenv("NODE_AGENT_CONFIG"); diag != "" && config == shippedConfig {
		configs = append(configs, diag)
	}
	return startAgent(name, agentBin(config), filepath.Join(dir, name+".log"), stateDir(dir, name), promPort, configs...)
}

// startApps starts s.containers containers, one per pod, each with its app, and adds them to
// rt.
func startApps(rt *criRuntime, j *journal, dir, pods string, s setting, seed uint64) ([]*app, error) {
	cs, err := startPods(rt, j, dir, s.containers, func(i int) (string, string, string) {
		pod := fmt.Sprintf("e2e_app-%02d_00000000-0000-0000-0000-0000000000%02d", i, i)
		return fmt.Sprintf("c%02d", i), "app", filepath.Join(pods, pod, "app", "0.log")
	})
	if err != nil {
		return nil, err
	}
	apps := make([]*app, len(cs))
	for i, c := range cs {
		apps[i] = &app{c: c, load: s.load, rng: rand.New(rand.NewPCG(seed, uint64(i)))}
	}
	return apps, nil
}

// startPods starts n containers, container i with the id, name and log path layout gives it,
// and adds them to rt; if one fails, it stops those started.
func startPods(rt *criRuntime, j *journal, dir string, n int, layout func(i int) (id, name, logPath string)) ([]*container, error) {
	var cs []*container
	for i := range n {
		id, name, logPath := layout(i)
		c, err := startContainer(id, name, logPath, filepath.Join(dir, "fifo"), j)
		if err != nil {
			for _, c := range cs {
				c.stop()
			}
			return nil, err
		}
		rt.add(c)
		cs = append(cs, c)
	}
	return cs, nil
}

// writeAndKill runs the apps for s.duration, killing each agent s.kills times at random moments
// spread over it, the last one at the first reopen kubelet asks for after its moment (in the
// middle of a rotation: files renamed, gzipped, removed and created around the restart), then
// ends the containers' output and returns what was written.
func writeAndKill(ctx context.Context, rt *criRuntime, apps []*app, agents []*agent, s setting, seed uint64) (runStats, error) {
	wctx, cancel := context.WithTimeout(ctx, s.duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(apps))
	for i, a := range apps {
		wg.Go(func() { errs[i] = a.run(wctx) })
	}
	rng := rand.New(rand.NewPCG(seed, 1<<32))
	var killErr error
	for k := range s.kills {
		slot := s.duration / time.Duration(s.kills)
		at := start.Add(slot*time.Duration(k) + slot/4 + time.Duration(rng.Int64N(int64(slot/2))))
		select {
		case <-wctx.Done():
			continue
		case <-time.After(time.Until(at)):
		}
		if k == s.kills-1 {
			select {
			case <-rt.reopened: // an old one
			default:
			}
			select {
			case <-wctx.Done():
				continue
			case <-rt.reopened:
			}
		}
		for _, a := range agents {
			killErr = errors.Join(killErr, a.kill())
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	stats := runStats{written: map[string]int{}}
	for _, a := range apps {
		a.c.stop()
		stats.written[a.c.id] = int(a.written.Load())
		stats.bytes += a.bytes.Load()
		stats.rotations += a.c.reopens - 1
	}
	total := 0
	for _, n := range stats.written {
		total += n
	}
	stats.rate = float64(total) / elapsed.Seconds()
	return stats, errors.Join(append(errs, killErr)...)
}

// waitGateway waits until g has every line written, or has received nothing for quiet, or
// patience has passed since the writing ended, and reports whether it has every line.
func waitGateway(g *gateway, written map[string]int, ended time.Time) bool {
	for {
		done, last := g.complete(written)
		if done {
			return true
		}
		if last.Before(ended) {
			last = ended
		}
		if time.Since(last) > quiet || time.Since(ended) > patience {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runDir is a new directory for a run: under NODE_DIR, kept for a look at the agents' logs and
// the files left, if that is set; else under the test's temporary directory.
func runDir(tempDir, name string) (string, error) {
	parent := os.Getenv("NODE_DIR")
	if parent == "" {
		parent = tempDir
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(parent, name+"-")
}
