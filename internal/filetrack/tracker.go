package filetrack

import (
	"errors"
	"sync"

	"go.uber.org/zap"
)

// Tracker discovers, identifies and reads files. See the package
// documentation.
type Tracker struct {
	opts Options
	log  *zap.Logger

	mu      sync.Mutex
	closed  bool
	resumed bool   // a checkpoint was restored
	poll    uint64 // polls so far
	files   identities
	disk    map[fileKey]*diskFile
	current pollState // the poll in progress
	fds     descriptors
	reports reporter
	paths   listing
	v       visits // what this poll looks at (see visits)
	scratch scratch
	read    readers // what the Files' readers share
	stats   counters
}

// pollState is what the poll in progress collects as it goes.
type pollState struct {
	holding  bool    // this poll is PollHolding's
	starved  bool    // resolve's comparison wanted a descriptor over MaxConcurrentFiles
	finished []*File // the identities finished in this poll: handed out once more
}

// finish marks f done; one already handed out is handed out once more, finished, so that
// the caller sees it end.
func (p *pollState) finish(f *File) {
	if f.r.done {
		return
	}
	f.r.done = true
	if f.marks.handedOut {
		p.finished = append(p.finished, f)
	}
}

// scratch is what polls reuse, so that a steady poll does not allocate.
type scratch struct {
	work         []*diskFile
	cands, out   []*File
	compressed   []*File
	drained      []*File // checkSources' drained files, for boundDeleted
	fpRaw, fpDec []byte
	tailBuf      []byte
	winA, winB   [checkWindow]byte
}

// New validates opts and returns a Tracker.
func New(opts Options) (*Tracker, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	t := &Tracker{
		opts:    opts,
		log:     opts.Logger,
		files:   newIdentities(),
		disk:    map[fileKey]*diskFile{},
		fds:     newDescriptors(opts.MaxConcurrentFiles, opts.Logger),
		reports: newReporter(opts.Logger),
		paths:   newListing(opts.Include, opts.Exclude, newWatching(opts.Watch, opts.FullScanInterval), opts.Logger),
		v:       newVisits(),
		scratch: scratch{
			fpRaw: make([]byte, opts.FingerprintSize),
			fpDec: make([]byte, opts.FingerprintSize),
		},
	}
	t.read.init(opts, &t.stats)
	return t, nil
}

// Commit records that the caller's data of file id up to end (a decompressed
// offset returned by Next or Partial) was accepted downstream, and that it
// held records records (the caller's count, kept in the checkpoint). It
// reports whether the committed offset moved, so that an unchanged
// checkpoint need not be written again.
func (t *Tracker) Commit(id uint64, end, records int64) (moved bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.files.byID[id]; f != nil && end > f.committed {
		f.committed = end
		f.records.Store(records)
		t.files.changed[id] = struct{}{}
		t.paths.watch.rest = false
		t.stirFile(f)
		return true
	}
	return false
}

// Stats returns the counters.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	open, tracked := t.fds.n, len(t.files.byID)
	t.mu.Unlock()
	return t.stats.stats(open, tracked)
}

// Close closes every descriptor. Poll returns nothing after it.
func (t *Tracker) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	var errs []error
	for _, f := range t.files.byID {
		errs = append(errs, t.fds.close(f))
	}
	errs = append(errs, t.paths.close())
	return errors.Join(errs...)
}
