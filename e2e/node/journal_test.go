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
	info, err := os.Stat(path)
	if err != nil {
		info = nil
	}
	j.write(who, what, path, info, extra...)
}

// noteClosed writes that who closed f, opened as path (renamed since, perhaps).
func (j *journal) noteClosed(who, path string, f *os.File) {
	info, err := f.Stat()
	if err != nil {
		info = nil
	}
	j.write(who, "close", path, info, "(the file opened as)")
}

// write writes one line: the time, who, what, the path under the pods directory, and the
// file's inode and size if info is not nil.
func (j *journal) write(who, what, path string, info os.FileInfo, extra ...string) {
	ino, size := "-", "-"
	if info != nil {
		size = fmt.Sprint(info.Size())
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino = fmt.Sprint(st.Ino)
		}
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
