package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// journal records every change kubelet and containerd make to the log files, with the inode
// and size of the file concerned, into files.log of the run: with the agent's debug log it
// tells which file the agent missed and what happened to it (and to its inode) meanwhile.
type journal struct {
	mu    sync.Mutex
	f     *os.File
	start time.Time
	pods  string
}

func newJournal(path, pods string) (*journal, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &journal{f: f, start: time.Now(), pods: pods}, nil
}

func (j *journal) close() { _ = j.f.Close() } // written line by line; a lost tail loses a hint

// note writes one event: who did what to path (stated after the event, or before for a
// removal).
func (j *journal) note(who, what, path string, extra ...string) {
	ino, size := "-", "-"
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err == nil {
		ino, size = fmt.Sprint(st.Ino), fmt.Sprint(st.Size)
	}
	rel, err := filepath.Rel(j.pods, path)
	if err != nil {
		rel = path
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, _ = fmt.Fprintf(j.f, "%s %.3f %s %s %s ino=%s size=%s %s\n", time.Now().UTC().Format("15:04:05.000"),
		time.Since(j.start).Seconds(), who, what, rel, ino, size, strings.Join(extra, " "))
}

// noteClosed writes that who closed f, which was at path (renamed since, perhaps).
func (j *journal) noteClosed(who, path string, f *os.File) {
	ino, size := "-", "-"
	if info, err := f.Stat(); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino, size = fmt.Sprint(st.Ino), fmt.Sprint(st.Size)
		}
	}
	rel, err := filepath.Rel(j.pods, path)
	if err != nil {
		rel = path
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, _ = fmt.Fprintf(j.f, "%s %.3f %s close %s ino=%s size=%s (the file opened as)\n", time.Now().UTC().Format("15:04:05.000"),
		time.Since(j.start).Seconds(), who, rel, ino, size)
}

// journalOS is kubelet's RealOS noting the changes kubelet's log manager makes: renames,
// removals and the files it creates (the .tmp of a compression).
type journalOS struct {
	kubecontainer.RealOS
	j *journal
}

func (o journalOS) Rename(from, to string) error {
	err := o.RealOS.Rename(from, to)
	o.j.note("kubelet", "rename", to, "from="+filepath.Base(from), errText(err))
	return err
}

func (o journalOS) Remove(path string) error {
	o.j.note("kubelet", "remove", path)
	return o.RealOS.Remove(path)
}

func (o journalOS) OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := o.RealOS.OpenFile(path, flag, perm)
	if flag&os.O_CREATE != 0 {
		o.j.note("kubelet", "create", path, errText(err))
	}
	return f, err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return "err=" + err.Error()
}
