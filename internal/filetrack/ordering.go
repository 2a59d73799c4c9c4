package filetrack

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Ordering selects, at every poll and before anything is read, which of the
// listed files are followed, as file_log's ordering_criteria does: the paths
// Regex matches (all, when only SortMtime is used), split into groups by
// GroupBy, each group sorted by SortBy and cut to its first TopN. A tracked
// file no longer selected is let go as a file that went away: read to its end
// if it is open, then finished.
type Ordering struct {
	// Regex captures the sort keys (named groups) from each path; a path it
	// does not match is not followed. Nil when no sort needs a key.
	Regex *regexp.Regexp
	// GroupBy, when set, makes each value of its first capture group a group
	// of its own; a path it does not match is not followed.
	GroupBy *regexp.Regexp
	// SortBy is applied in order, each a stable sort, so the last one decides
	// first and the ones before it break its ties. A path whose key does not
	// parse is not followed.
	SortBy []Sort
	// TopN is how many paths of each group are followed; 0 means all.
	TopN int
}

// Sort is one sort of the selection.
type Sort struct {
	Kind SortKind
	// RegexKey names the Regex group holding the key (not for SortMtime).
	RegexKey  string
	Ascending bool
	// Time parses the key of SortTimestamp into Unix nanoseconds.
	Time func(key string) (int64, bool)
}

// SortKind is what a Sort compares.
type SortKind uint8

const (
	SortNumeric      SortKind = iota // the key as an integer
	SortAlphabetical                 // the key as a string
	SortTimestamp                    // the key parsed by Sort.Time
	SortMtime                        // the file's modification time
)

// candidate is a listed path in the selection, with its sort keys.
type candidate struct {
	e    *listed
	keys []string
	vals []int64 // parsed keys, by Sort
}

// selected returns the listed files to follow: all of listing without an
// Ordering (o nil); otherwise the chosen ones, in path order. Paths that could not be
// stated go through as they are, to be reported; files older than olderThan
// (Options.ExcludeOlderThan, 0 for none) are left out.
func (o *Ordering) selected(listing []listed, olderThan time.Duration) []listed {
	if o == nil || len(o.SortBy) == 0 {
		return listing
	}
	var cutoff int64
	if olderThan > 0 {
		// file_log leaves out old files before it sorts and cuts.
		cutoff = time.Now().Add(-olderThan).UnixNano()
	}
	groups := map[string][]candidate{}
	var out []listed
	for i := range listing {
		e := &listing[i]
		if e.problem() {
			out = append(out, *e)
			continue
		}
		if cutoff != 0 && e.mtime < cutoff {
			continue
		}
		group := ""
		if o.GroupBy != nil {
			m := o.GroupBy.FindStringSubmatch(e.path)
			if len(m) < 2 {
				continue
			}
			group = m[1]
		}
		if c, ok := o.candidate(e); ok {
			groups[group] = append(groups[group], c)
		}
	}
	for _, g := range groups {
		for i := range o.SortBy {
			o.sort(g, i)
		}
		if o.TopN > 0 && len(g) > o.TopN {
			g = g[:o.TopN]
		}
		for _, c := range g {
			out = append(out, *c.e)
		}
	}
	slices.SortFunc(out, func(a, b listed) int { return strings.Compare(a.path, b.path) })
	return out
}

// validate checks that every key a sort needs is a group of Regex.
func (o *Ordering) validate() error {
	if o == nil {
		return nil
	}
	for _, s := range o.SortBy {
		switch {
		case s.Kind == SortMtime:
		case o.Regex == nil || o.Regex.SubexpIndex(s.RegexKey) < 0:
			return fmt.Errorf("filetrack: ordering key %q is not a named group of the regex", s.RegexKey)
		case s.Kind == SortTimestamp && s.Time == nil:
			return errors.New("filetrack: timestamp ordering without a parser")
		}
	}
	return nil
}

// candidate parses e's sort keys; false if a key is missing or does not parse.
func (o *Ordering) candidate(e *listed) (candidate, bool) {
	c := candidate{e: e, vals: make([]int64, len(o.SortBy)), keys: make([]string, len(o.SortBy))}
	var m []string
	if o.Regex != nil {
		if m = o.Regex.FindStringSubmatch(e.path); m == nil {
			return c, false
		}
	}
	for i, s := range o.SortBy {
		if s.Kind == SortMtime {
			c.vals[i] = e.mtime
			continue
		}
		key := m[o.Regex.SubexpIndex(s.RegexKey)]
		c.keys[i] = key
		switch s.Kind {
		case SortNumeric:
			n, err := strconv.Atoi(key)
			if err != nil {
				return c, false
			}
			c.vals[i] = int64(n)
		case SortTimestamp:
			at, ok := s.Time(key)
			if !ok {
				return c, false
			}
			c.vals[i] = at
		}
	}
	return c, true
}

// sort sorts g by SortBy[i], keeping the order of equal keys.
func (o *Ordering) sort(g []candidate, i int) {
	s := o.SortBy[i]
	slices.SortStableFunc(g, func(a, b candidate) int {
		var d int
		if s.Kind == SortAlphabetical {
			d = strings.Compare(a.keys[i], b.keys[i])
		} else {
			d = cmp.Compare(a.vals[i], b.vals[i])
		}
		if !s.Ascending {
			d = -d
		}
		return d
	})
}
