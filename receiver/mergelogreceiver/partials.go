package mergelogreceiver

import "go.uber.org/zap"

// The bytes held in entries not finished yet, the pieces of split container lines and the
// multiline entries being joined, are bounded across all files by max_partial_bytes: a node's
// hundreds of streams must not each hold up to max_log_size at once. reading.held is their sum
// as last counted; a file's share is counted again whenever its streams may have changed (read,
// flushed, forgotten).

// held returns the bytes s holds for entries not finished yet.
func (s *stream) held() int {
	n := s.joiner.Held()
	if s.pieces != nil {
		n += s.pieces.Held()
	}
	return n
}

// recount brings f's share of reading.held up to date.
func (r *mergelogReceiver) recount(f *tailedFile) {
	n := 0
	for _, s := range f.streams {
		n += s.held()
	}
	r.read.held += n - f.held
	f.held = n
}

// boundPartials counts f's share again after f was read and, if that took the sum past
// max_partial_bytes, emits what f's streams hold as it is: the file that went past the bound
// gives its share back, so the sum stays within it after every read. Each time is counted and
// logged, naming the file and the bytes.
func (r *mergelogReceiver) boundPartials(f *tailedFile) {
	r.recount(f)
	if r.read.held <= int(r.cfg.MaxPartialBytes) || f.held == 0 {
		return
	}
	held := f.held
	for _, s := range f.streams {
		s.flush()
	}
	r.recount(f)
	r.tel.counts.partialsCut++
	r.set.Logger.Warn("Emitted an unfinished entry as it is: the entries not finished across all files held more than max_partial_bytes",
		zap.String("path", f.path), zap.Int("bytes", held), zap.Int("max_partial_bytes", int(r.cfg.MaxPartialBytes)))
}
