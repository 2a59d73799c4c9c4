package filetrack

import (
	"bytes"
	"slices"
	"sort"
)

// identities are the identities a Tracker knows, by ID and by fingerprint, with what
// changed of them since Changes.
type identities struct {
	byID    map[uint64]*File
	byFP    index
	nextID  uint64
	changed map[uint64]struct{} // identities created, restored or committed further since Changes
	gone    []uint64            // identities forgotten since Changes
}

func newIdentities() identities {
	return identities{
		byID:    map[uint64]*File{},
		byFP:    index{lens: map[int]int{}},
		changed: map[uint64]struct{}{},
	}
}

// add makes f known, and changed.
func (ids *identities) add(f *File) {
	ids.byID[f.id] = f
	ids.changed[f.id] = struct{}{}
	ids.byFP.insert(f)
}

// forget drops f, and notes it gone.
func (ids *identities) forget(f *File) {
	ids.byFP.remove(f)
	delete(ids.byID, f.id)
	delete(ids.changed, f.id)
	ids.gone = append(ids.gone, f.id)
}

// index holds the identities sorted by fingerprint, so that both kinds of
// compatible fingerprints are found without a scan: longer ones (a range)
// and shorter ones (one lookup per length in use).
type index struct {
	s    []*File
	lens map[int]int // fingerprint length → identities with it
}

func (x *index) search(fp []byte, id uint64) int {
	return sort.Search(len(x.s), func(i int) bool {
		c := bytes.Compare(x.s[i].fp, fp)
		return c > 0 || c == 0 && x.s[i].id >= id
	})
}

func (x *index) insert(f *File) {
	x.s = slices.Insert(x.s, x.search(f.fp, f.id), f)
	x.lens[len(f.fp)]++
}

func (x *index) remove(f *File) {
	i := x.search(f.fp, f.id)
	if i == len(x.s) || x.s[i] != f {
		return
	}
	x.s = slices.Delete(x.s, i, i+1)
	x.lens[len(f.fp)]--
	if x.lens[len(f.fp)] == 0 {
		delete(x.lens, len(f.fp))
	}
}

// compatible appends the identities whose fingerprint is a prefix of fp or
// has fp as a prefix.
func (x *index) compatible(fp []byte, out []*File) []*File {
	for i := x.search(fp, 0); i < len(x.s) && bytes.HasPrefix(x.s[i].fp, fp); i++ {
		out = append(out, x.s[i])
	}
	for l := range x.lens {
		if l >= len(fp) {
			continue
		}
		p := fp[:l]
		for i := x.search(p, 0); i < len(x.s) && bytes.Equal(x.s[i].fp, p); i++ {
			out = append(out, x.s[i])
		}
	}
	return out
}
