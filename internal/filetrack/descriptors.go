package filetrack

import (
	"os"

	"go.uber.org/zap"
)

// descriptors counts the open descriptors, the identities' and the short-lived ones Poll opens
// for a look, and keeps them within Options.MaxConcurrentFiles.
type descriptors struct {
	limit  int
	open   func(string) (*os.File, error) // os.Open; a test's to watch the count
	n      int                            // open now
	opened map[*File]struct{}             // the identities with a descriptor open
	log    *zap.Logger
}

func newDescriptors(limit int, log *zap.Logger) descriptors {
	return descriptors{limit: limit, open: os.Open, opened: map[*File]struct{}{}, log: log}
}

// openKnown opens path if it is still the file known by key, and returns its descriptor and
// size. An error is the open's; a nil descriptor without one means the path holds another
// file now (the descriptor opened is closed again).
func (d *descriptors) openKnown(path string, key fileKey) (*os.File, int64, error) {
	fd, err := d.open(path)
	if err != nil {
		return nil, 0, err
	}
	d.n++
	info, err := fd.Stat()
	if err != nil || !hasKey(fd.Name(), info, key) {
		d.closeRaw(fd)
		return nil, 0, nil
	}
	return fd, info.Size(), nil
}

// hold gives f the descriptor fd of its source, to read from.
func (d *descriptors) hold(f *File, fd *os.File) {
	f.r.fd, f.r.needSeek = fd, true
	d.opened[f] = struct{}{}
}

// slot makes room for one more descriptor if it can, closing the least
// useful open file.
func (d *descriptors) slot() bool {
	if d.n < d.limit {
		return true
	}
	var victim *File
	for f := range d.opened {
		if f.r.pinned() {
			continue
		}
		if victim == nil || victim.wants() && !f.wants() ||
			victim.wants() == f.wants() && f.marks.lastServed < victim.marks.lastServed {
			victim = f
		}
	}
	if victim == nil {
		return false
	}
	d.closeFile(victim)
	return true
}

// closeFile closes f's descriptor, if it has one, and ends its reader. The
// descriptor was opened read-only, so a failed close loses no data: it is
// logged at debug and otherwise ignored. Tracker.Close, which returns it,
// calls close.
func (d *descriptors) closeFile(f *File) {
	if err := d.close(f); err != nil {
		d.logCloseErr(f.path, err)
	}
}

// close is closeFile returning the descriptor's close error.
func (d *descriptors) close(f *File) error {
	fd := f.r.letGo()
	if fd == nil {
		return nil
	}
	delete(d.opened, f)
	return d.closeCounted(fd)
}

// closeRaw closes a descriptor that belongs to no File. It was opened
// read-only: a failed close loses no data, and is logged at debug.
func (d *descriptors) closeRaw(fd *os.File) {
	if err := d.closeCounted(fd); err != nil {
		d.logCloseErr(fd.Name(), err)
	}
}

func (d *descriptors) closeCounted(fd *os.File) error {
	d.n--
	return fd.Close()
}

func (d *descriptors) logCloseErr(path string, err error) {
	d.log.Debug("closing a read-only file failed", zap.String("path", path), zap.Error(err))
}
