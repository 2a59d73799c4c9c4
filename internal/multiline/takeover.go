package multiline

// TakeOver continues, in this Joiner, the entry open in from: the lines another input (the file
// before this one, which a rotation ended) gave it and that the next line of this input may
// join. from is left empty, as after Flush; j must have nothing open (else nothing happens). The
// lines taken over keep their text and the state that decides what joins them (the Detector's,
// in detect mode); their end offsets, which were from's input's, become at: where this input's
// lines begin, so that an entry of those lines alone ends before this input's first line.
func (j *Joiner) TakeOver(from *Joiner, at int64) {
	if j.lines > 0 || from.lines == 0 || j.mode != from.mode {
		return
	}
	// The entry's state changes hands; each keeps its sink and its counts.
	sink, stats, fromSink, fromStats := j.sink, j.stats, from.sink, from.stats
	*j, *from = *from, *j
	j.sink, j.stats, from.sink, from.stats = sink, stats, fromSink, fromStats
	j.end = at
	for i := range j.bounds {
		j.bounds[i].end = at
	}
	if j.detect != nil {
		j.detect.confirmedEnd = at
	}
	from.reset()
	from.open = from.mode == modeEnd
	if from.detect != nil {
		from.detect.det.Reset()
	}
}
