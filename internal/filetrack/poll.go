package filetrack

// Poll discovers files, matches them to identities, opens and closes
// descriptors, and returns the files to read this round (sorted by ID): those
// with data, those being drained, and, once, those that finished during this
// poll. The slice is valid until the next Poll.
func (t *Tracker) Poll() []*File {
	return t.pollFor(false)
}

// PollHolding is Poll for a caller that cannot read now (its deliveries are blocked): files are
// discovered and descriptors opened as by Poll, but none with unread data is closed to give
// its turn to another, so that a file deleted or rotated away meanwhile can still be read to
// its end from the descriptor held.
func (t *Tracker) PollHolding() []*File {
	return t.pollFor(true)
}

// pollFor runs the stages of a poll, in order; the comments name their files.
func (t *Tracker) pollFor(holding bool) []*File {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.current.holding = holding
	moved, all := t.paths.list() // watch.go, listing.go
	if !moved && t.paths.watch.rest {
		t.paths.relisted = t.paths.relisted[:0]
		return nil // nothing changed, and the last poll left nothing to do
	}
	t.poll++
	t.current.finished = t.current.finished[:0]
	t.beginVisits(all)  // visits.go
	t.housekeep()       // retire.go
	t.scan()            // discovery.go
	t.sweep()           // discovery.go
	t.checkSources()    // change.go
	t.boundDeleted()    // unread.go
	t.resolveAll()      // match.go
	t.adopt()           // match.go
	t.deleteRead()      // retire.go
	t.forget()          // retire.go
	out := t.allocate() // allocate.go
	t.endVisits(out)    // visits.go
	t.paths.watch.rest = t.atRest(out)
	return out
}

// atRest reports whether a poll after this one, with the same listing and no
// commit in between, would do nothing and hand out nothing: no file has data
// or a descriptor it keeps, none is being drained, stalled, waiting for a
// copy or to be forgotten, no candidate is undecided, and no listed file grows
// too old (exclude_older_than) before the next full listing. Skipping such
// polls makes an idle poll of many watched files cost next to nothing; any
// state this misses waits at most for the next full listing.
func (t *Tracker) atRest(out []*File) bool {
	if t.paths.watch.hints == nil || len(out) > 0 || len(t.current.finished) > 0 {
		return false
	}
	if len(t.v.busyFiles) > 0 || len(t.v.busyDisks) > 0 {
		return false // see quietFile and quietDisk; what was not visited is quiet
	}
	return !t.paths.ageing(t.opts.ExcludeOlderThan)
}
