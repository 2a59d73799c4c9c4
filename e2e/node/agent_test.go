package node

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The pod's settings (deploy/kubernetes/agent-daemonset.yaml): GOMAXPROCS and GOMEMLIMIT as the
// manifest sets them.
const (
	podGOMAXPROCS = "1"
	podGOMEMLIMIT = "200MiB"
)

// agent is one node agent: the built collector run with its configs, restarted after each
// SIGKILL with the same configs (and so the same checkpoint directory), as kubelet restarts
// the DaemonSet's pod.
type agent struct {
	name     string
	args     []string
	promPort int    // the Prometheus endpoint of its own metrics, 0 if none
	stateDir string // its checkpoints (file_storage), copied at each kill for a look
	logPath  string
	log      *os.File

	cmd     *exec.Cmd
	exited  chan struct{}
	kills   int
	stopped bool
	cpu     time.Duration // of the processes ended so far
	peak    int64         // VmHWM bytes, the highest of any of its processes
}

// agentBin is the build that runs config: the shipped agent's config runs on the agent's build
// (OTELCOL_AGENT_BIN, as the DaemonSet's image holds it) when given, everything else on the full
// distribution (OTELCOL_BIN), which has file_log.
func agentBin(config string) string {
	if bin := os.Getenv("OTELCOL_AGENT_BIN"); bin != "" && config == shippedConfig {
		return bin
	}
	return os.Getenv("OTELCOL_BIN")
}

func startAgent(name, bin, logPath, stateDir string, promPort int, configs ...string) (*agent, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	a := &agent{name: name, args: []string{bin}, promPort: promPort, stateDir: stateDir, logPath: logPath, log: log}
	for _, c := range configs {
		a.args = append(a.args, "--config", c)
	}
	if err := a.start(); err != nil {
		_ = log.Close() // nothing was written to it
		return nil, err
	}
	return a, nil
}

func (a *agent) start() error {
	a.cmd = exec.Command(a.args[0], a.args[1:]...)
	a.cmd.Env = append(os.Environ(), "GOMAXPROCS="+podGOMAXPROCS, "GOMEMLIMIT="+podGOMEMLIMIT,
		"K8S_NODE_NAME=node-e2e", "K8S_POD_IP=127.0.0.1", "K8S_NAMESPACE=otel-system")
	a.cmd.Stdout, a.cmd.Stderr = a.log, a.log
	if err := a.cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	a.exited = exited
	go func() { _ = a.cmd.Wait(); close(exited) }() // ProcessState says how it ended
	return nil
}

// kill ends the agent with SIGKILL and starts it again, keeping a copy of the checkpoints the
// new process starts from (<state>-kill<N>).
func (a *agent) kill() error {
	if err := a.end(syscall.SIGKILL, time.Minute); err != nil {
		return err
	}
	a.kills++
	fmt.Fprintf(a.log, "=== e2e/node: SIGKILL %d at %s\n", a.kills, time.Now().UTC().Format(time.RFC3339Nano))
	if err := copyDir(a.stateDir, fmt.Sprintf("%s-kill%d", a.stateDir, a.kills)); err != nil {
		return err
	}
	return a.start()
}

// copyDir copies the files of directory from into a new directory to.
func copyDir(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.Mkdir(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// stop ends the agent with SIGTERM, as kubelet stops a pod; once.
func (a *agent) stop() error {
	if a.stopped {
		return nil
	}
	a.stopped = true
	err := a.end(syscall.SIGTERM, time.Minute)
	_ = a.log.Close() // written only by the processes, which have ended
	return err
}

// end sends sig and waits for the process, adding up its CPU time and peak RSS. An agent
// that ended by itself before is an error.
func (a *agent) end(sig syscall.Signal, timeout time.Duration) error {
	select {
	case <-a.exited:
		a.account()
		return fmt.Errorf("%s ended by itself (%v); see %s", a.name, a.cmd.ProcessState, a.logPath)
	default:
	}
	// VmHWM before the signal: /proc keeps no status of a process reaped.
	if peak, err := vmHWM(a.cmd.Process.Pid); err == nil {
		a.peak = max(a.peak, peak)
	}
	_ = a.cmd.Process.Signal(sig) // exited says whether it ended
	select {
	case <-a.exited:
	case <-time.After(timeout):
		_ = a.cmd.Process.Kill()
		<-a.exited
		a.account()
		return fmt.Errorf("%s did not end within %s of %v; see %s", a.name, timeout, sig, a.logPath)
	}
	a.account()
	return nil
}

// account adds the ended process's CPU time to the agent's. Not its ru_maxrss: Linux carries
// the forking process's peak over fork and exec into it, so a child of a large test process
// reports the test's (VmHWM, read before each signal, is the agent's own).
func (a *agent) account() {
	st := a.cmd.ProcessState
	a.cpu += st.UserTime() + st.SystemTime()
}

// vmHWM reads a process's peak resident set size from /proc.
func vmHWM(pid int) (int64, error) {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// metrics scrapes the agent's Prometheus endpoint and returns the samples whose names begin
// with prefix.
func (a *agent) metrics(prefix string) (string, error) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", a.promPort))
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }() // read whole below
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			out.WriteString(sc.Text() + "\n")
		}
	}
	return out.String(), nil
}
