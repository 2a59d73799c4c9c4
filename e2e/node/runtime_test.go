package node

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	cio "github.com/containerd/containerd/pkg/cri/io"
	cioutil "github.com/containerd/containerd/pkg/ioutil"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	critesting "k8s.io/cri-api/pkg/apis/testing"
)

// maxLineSize is containerd's default max_container_log_line_size: a longer line is written as
// P pieces of this size and a last F piece.
const maxLineSize = 16 * 1024

// criRuntime answers kubelet's ContainerLogManager as containerd's CRI plugin does, for the
// containers of one run: it lists them as running, gives each one's log path and reopens a
// container's log when asked. The embedded fake answers the calls the manager does not make.
type criRuntime struct {
	*critesting.FakeRuntimeService
	mu         sync.Mutex
	containers map[string]*container
	reopened   chan struct{} // receives (if not full) at every reopen: kubelet is rotating
}

func newCRIRuntime() *criRuntime {
	return &criRuntime{FakeRuntimeService: critesting.NewFakeRuntimeService(), containers: map[string]*container{},
		reopened: make(chan struct{}, 1)}
}

func (r *criRuntime) add(c *container) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.containers[c.id] = c
}

// removeAll takes every container out of the runtime's list, so that the log manager, which
// cannot be stopped, stops rotating their files.
func (r *criRuntime) removeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.containers)
}

func (r *criRuntime) get(id string) (*container, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return nil, fmt.Errorf("no container %q", id)
	}
	return c, nil
}

func (r *criRuntime) ListContainers(context.Context, *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.containers))
	for id := range r.containers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	list := make([]*runtimeapi.Container, 0, len(ids))
	for _, id := range ids {
		list = append(list, &runtimeapi.Container{
			Id:       id,
			Metadata: &runtimeapi.ContainerMetadata{Name: r.containers[id].name},
			State:    runtimeapi.ContainerState_CONTAINER_RUNNING,
		})
	}
	return list, nil
}

func (r *criRuntime) ContainerStatus(_ context.Context, id string, _ bool) (*runtimeapi.ContainerStatusResponse, error) {
	c, err := r.get(id)
	if err != nil {
		return nil, err
	}
	return &runtimeapi.ContainerStatusResponse{Status: &runtimeapi.ContainerStatus{
		Id:       id,
		Metadata: &runtimeapi.ContainerMetadata{Name: c.name},
		State:    runtimeapi.ContainerState_CONTAINER_RUNNING,
		LogPath:  c.logPath,
	}}, nil
}

func (r *criRuntime) ReopenContainerLog(_ context.Context, id string) error {
	c, err := r.get(id)
	if err != nil {
		return err
	}
	select {
	case r.reopened <- struct{}{}:
	default:
	}
	return c.reopen()
}

// container is containerd's side of one running container: its stdout and stderr FIFOs
// (containerd's ContainerIO, copying them to its outputs) and the CRI loggers writing 0.log, as
// containerd's CRI plugin sets them up (createContainerLoggers) and swaps them on
// ReopenContainerLog. The process's side of the FIFOs is stdout and stderr.
type container struct {
	id, name, logPath string
	io                *cio.ContainerIO
	journal           *journal
	stdout, stderr    *os.File

	mu      sync.Mutex    // one reopen at a time
	closed  chan struct{} // closed once the loggers of the latest reopen closed their file
	reopens int
}

// startContainer creates the FIFOs under fifoDir and the log file at logPath and starts
// copying.
func startContainer(id, name, logPath, fifoDir string, j *journal) (*container, error) {
	cIO, err := cio.NewContainerIO(id, cio.WithNewFIFOs(fifoDir, false, false))
	if err != nil {
		return nil, err
	}
	c := &container{id: id, name: name, logPath: logPath, io: cIO, journal: j}
	if err := c.reopen(); err != nil {
		_ = cIO.Close()
		return nil, err
	}
	cIO.Pipe()
	cfg := cIO.Config()
	if c.stdout, err = os.OpenFile(cfg.Stdout, os.O_WRONLY, 0); err == nil {
		c.stderr, err = os.OpenFile(cfg.Stderr, os.O_WRONLY, 0)
	}
	if err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// reopen opens logPath anew (creating it) with two loggers, stdout's and stderr's, writing
// through one serial writer, and puts them in place of the old ones, which it closes: each
// flushes what it holds of a line as a P piece and, once both ended, the old file is closed.
func (c *container) reopen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(c.logPath), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	c.journal.note("containerd", "open", c.logPath)
	w := cioutil.NewSerialWriteCloser(f)
	stdout, stdoutDone := cio.NewCRILogger(c.logPath, w, cio.Stdout, maxLineSize)
	stderr, stderrDone := cio.NewCRILogger(c.logPath, w, cio.Stderr, maxLineSize)
	closed := make(chan struct{})
	go func() {
		<-stdoutDone
		<-stderrDone
		c.journal.noteClosed("containerd", c.logPath, f)
		_ = f.Close() // the loggers have ended: nothing more is written to it
		close(closed)
	}()
	c.closed = closed
	oldStdout, oldStderr := c.io.AddOutput("log", stdout, stderr)
	for _, old := range []io.Closer{oldStdout, oldStderr} {
		if old != nil {
			_ = old.Close() // an io.PipeWriter's Close returns nil
		}
	}
	c.reopens++
	return nil
}

// reopenCount is how many times the container's log was opened: 1 until kubelet rotates it.
func (c *container) reopenCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reopens
}

// stop ends the process's output and waits until containerd's side has written all of it.
func (c *container) stop() {
	for _, f := range []*os.File{c.stdout, c.stderr} {
		if f != nil {
			_ = f.Close()
		}
	}
	c.io.Wait()
	_ = c.io.Close()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	<-closed
}
