package filetrack

// visits is what a poll looks at. A wide poll visits every identity and every
// file on disk; a narrow one only those that may need something of a stage:
// the ones not quiet after their last visit, the ones stirred since (a path the
// directory watches reported, a commit), every shadow, and, with each visited
// identity its files on disk and with each visited file its identity. Quiet
// ones (see quietFile, quietDisk) need nothing until something stirs them, so
// a poll's work follows what changed, not how many files are followed.
type visits struct {
	wide    bool
	scanned bool        // scan has run in this poll
	files   []*File     // this poll's visited identities
	disks   []*diskFile // this poll's visited files on disk

	busyFiles map[*File]struct{}     // not quiet at their last visit, or stirred since
	busyDisks map[*diskFile]struct{} // not quiet at their last visit
	shadows   map[*diskFile]struct{} // every shadow: visited at every poll
}

func newVisits() visits {
	return visits{
		busyFiles: map[*File]struct{}{},
		busyDisks: map[*diskFile]struct{}{},
		shadows:   map[*diskFile]struct{}{},
	}
}

// beginVisits chooses this poll's visits. A poll is wide after a full listing
// (the safety net that visits everything), when the selection or the age
// limit may change with no event (ordering_criteria, exclude_older_than),
// when relist dropped a file it knows or one still listed under another path,
// and when a path it stated again is one of several to its file: a full scan
// sees each file under its first path, as at every full listing.
func (t *Tracker) beginVisits(listedAll bool) {
	v := &t.v
	clear(v.files)
	clear(v.disks)
	v.files, v.disks = v.files[:0], v.disks[:0]
	v.scanned = false
	v.wide = listedAll || t.opts.Ordering != nil || t.opts.ExcludeOlderThan > 0
	for _, k := range t.paths.unlisted {
		if t.disk[k] != nil || t.paths.count[k] > 0 {
			v.wide = true
		}
	}
	for _, p := range t.paths.relisted {
		if e := t.paths.find(p); e != nil && t.paths.count[e.key] > 1 {
			v.wide = true
		}
	}
	if v.wide {
		for _, f := range t.files.byID {
			t.visitFile(f)
		}
		for _, df := range t.disk {
			t.visitDisk(df)
		}
		return
	}
	for f := range v.busyFiles {
		t.visitFile(f)
	}
	for df := range v.busyDisks {
		t.visitDisk(df)
	}
	for df := range v.shadows {
		t.visitDisk(df)
	}
}

// visitFile adds f, with its source, to this poll's visits.
func (t *Tracker) visitFile(f *File) {
	if f.marks.visited == t.poll {
		return
	}
	f.marks.visited = t.poll
	t.v.files = append(t.v.files, f)
	if f.src != nil {
		t.visitDisk(f.src)
	}
}

// visitDisk adds df, with its identity, to this poll's visits. A file listed
// at its last visit in a narrow poll was seen, unvisited, at every poll since:
// its identity's lastSeen is brought up to the last poll (forget counts from it).
func (t *Tracker) visitDisk(df *diskFile) {
	if df.visited == t.poll {
		return
	}
	df.visited = t.poll
	t.v.disks = append(t.v.disks, df)
	if t.v.scanned {
		t.markUnchanged(df)
	}
	if df.ident != nil {
		if !t.v.wide && df.listed {
			df.ident.marks.lastSeen = max(df.ident.marks.lastSeen, t.poll-1)
		}
		t.visitFile(df.ident)
	}
}

// setRole gives df its role towards identity x (nil for roleNew), keeping the
// set of shadows, and visits x.
func (t *Tracker) setRole(df *diskFile, r role, x *File) {
	df.role, df.ident = r, x
	if r == roleShadow {
		t.v.shadows[df] = struct{}{}
	} else {
		delete(t.v.shadows, df)
	}
	if x != nil {
		t.visitFile(x)
	}
}

// dropDisk forgets a file on disk: gone, deleted, or let go.
func (t *Tracker) dropDisk(df *diskFile) {
	delete(t.disk, df.key)
	delete(t.v.busyDisks, df)
	delete(t.v.shadows, df)
	df.dropped = true
}

// forgetFile drops identity f.
func (t *Tracker) forgetFile(f *File) {
	t.files.forget(f)
	delete(t.v.busyFiles, f)
	f.marks.forgotten = true
}

// scanUnchanged ends scan in a narrow poll: the visited files on disk it did
// not state again are marked as scan would (see markUnchanged), and so is any
// visited later in the poll.
func (t *Tracker) scanUnchanged() {
	for _, df := range t.v.disks {
		t.markUnchanged(df)
	}
	t.v.scanned = true
}

// markUnchanged marks df, in a narrow poll, as seen and unchanged if it was
// listed at its last visit: no event said otherwise, and a file dropped from
// the listing makes the poll wide.
func (t *Tracker) markUnchanged(df *diskFile) {
	if !t.v.wide && df.seen != t.poll && df.listed {
		df.seen, df.changed, df.prevSize = t.poll, false, df.size
	}
}

// endVisits records, for the visited, whether they are quiet now. The files
// handed out are busy: their reading changes them.
func (t *Tracker) endVisits(out []*File) {
	v := &t.v
	for _, f := range v.files {
		if f.marks.forgotten || t.quietFile(f) {
			delete(v.busyFiles, f)
		} else {
			v.busyFiles[f] = struct{}{}
		}
	}
	for _, f := range out {
		t.stirFile(f) // a forgotten one is out once, finished
	}
	for _, df := range v.disks {
		df.listed = df.seen == t.poll
		switch {
		case df.dropped:
		case quietDisk(df, t.poll):
			delete(v.busyDisks, df)
		default:
			v.busyDisks[df] = struct{}{}
		}
	}
	t.paths.settled()
}

// quietFile reports whether f needs nothing until something changes: no data
// or descriptor it keeps, not drained, stalled or failed, seen at this poll,
// its reading counted, and closed if done.
func (t *Tracker) quietFile(f *File) bool {
	return !f.wants() && f.r.idle() && f.marks.lastSeen == t.poll
}

// quietDisk reports whether df needs nothing until it changes: seen at this
// poll, not to be matched again, and, as a shadow, of an identity that has its
// source and verified against its latest check points.
func quietDisk(df *diskFile, poll uint64) bool {
	return df.seen == poll && !df.match.retry && (df.role != roleShadow ||
		df.ident.src != nil && (df.match.strong || df.match.verifiedGen == df.ident.r.checks.gen))
}

// stirFile makes f visited at the next poll.
func (t *Tracker) stirFile(f *File) {
	if !f.marks.forgotten {
		t.v.busyFiles[f] = struct{}{}
	}
}
