package filetrack

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// Checkpoint format, version 2. Integers are unsigned varints unless said:
//
//	"MLFT" version count
//	count × { id committed records kind dev ino len(path) path len(fp) fp
//	          nchecks nchecks × { off sum(8 bytes, little endian) } }
//	CRC-32C of everything before (4 bytes, little endian)
//
// committed is math.MaxInt64 for a compressed file skipped unread. Version 1, without records,
// is still read (records 0).
const (
	cpMagic   = "MLFT"
	cpVersion = 2
	// Decoding limits, far above what encoding produces, so that garbage
	// cannot make Restore allocate much.
	cpMaxFP   = 1 << 20
	cpMaxPath = 1 << 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type entry struct {
	id        uint64
	committed int64
	records   int64
	kind      decompress.Kind
	key       fileKey
	path      string
	fp        []byte
	checks    []check
}

// Checkpoint encodes the identities with their committed offsets.
func (t *Tracker) Checkpoint() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	es := make([]entry, 0, len(t.files))
	for _, f := range t.files {
		f.mu.Lock()
		cs := slices.Clone(f.checks)
		f.mu.Unlock()
		es = append(es, entry{
			id: f.id, committed: f.committed, records: f.records, kind: f.kind, key: f.key,
			path: f.path, fp: f.fp, checks: cs,
		})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.id, b.id) })
	return encode(es)
}

// Restore loads a Checkpoint from a previous run; it must come before the
// first Poll. Empty data means no previous state. On error nothing is
// loaded.
func (t *Tracker) Restore(data []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.poll > 0 {
		return errors.New("filetrack: Restore after Poll")
	}
	if len(data) == 0 {
		return nil
	}
	es, err := decode(data)
	if err != nil {
		return err
	}
	for _, e := range es {
		if t.files[e.id] != nil {
			return fmt.Errorf("filetrack: checkpoint: identity %d already known", e.id)
		}
	}
	for _, e := range es {
		// A smaller fingerprint size than before: the prefix still identifies.
		fp := e.fp[:min(len(e.fp), t.opts.FingerprintSize)]
		f := &File{
			t: t, id: e.id, kind: e.kind, key: e.key, path: e.path, resolved: e.path,
			fp:     append(make([]byte, 0, t.opts.FingerprintSize), fp...),
			checks: append(make([]check, 0, maxChecks+1), e.checks...),
			off:    e.committed, committed: e.committed, counted: e.committed, records: e.records,
			whole: e.committed == whole,
		}
		f.done = f.whole
		f.tail.pos = f.off
		t.files[f.id] = f
		t.idx.insert(f)
		t.nextID = max(t.nextID, f.id)
	}
	t.resumed = true
	return nil
}

func encode(es []entry) []byte {
	b := append([]byte(cpMagic), cpVersion)
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendUvarint(b, e.id)
		b = binary.AppendUvarint(b, uint64(e.committed))
		b = binary.AppendUvarint(b, uint64(e.records))
		b = binary.AppendUvarint(b, uint64(e.kind))
		b = binary.AppendUvarint(b, e.key.dev)
		b = binary.AppendUvarint(b, e.key.ino)
		b = binary.AppendUvarint(b, uint64(len(e.path)))
		b = append(b, e.path...)
		b = binary.AppendUvarint(b, uint64(len(e.fp)))
		b = append(b, e.fp...)
		b = binary.AppendUvarint(b, uint64(len(e.checks)))
		for _, c := range e.checks {
			b = binary.AppendUvarint(b, uint64(c.off))
			b = binary.LittleEndian.AppendUint64(b, c.sum)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

var errCorrupt = errors.New("filetrack: checkpoint corrupt")

// decoder reads a checkpoint; its first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > limit {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errCorrupt
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func decode(data []byte) ([]entry, error) {
	if len(data) < len(cpMagic)+1+4 || string(data[:len(cpMagic)]) != cpMagic {
		return nil, errors.New("filetrack: not a checkpoint")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errCorrupt
	}
	version := body[len(cpMagic)]
	if version != 1 && version != cpVersion {
		return nil, fmt.Errorf("filetrack: checkpoint version %d not supported (want 1 or %d)", version, cpVersion)
	}
	d := decoder{b: body[len(cpMagic)+1:]}
	// Every entry takes at least 9 bytes: a bound on count before allocating.
	n := d.uvarint(uint64(len(d.b)) / 9)
	es := make([]entry, 0, n)
	seen := make(map[uint64]bool, n)
	for range n {
		var e entry
		e.id = d.uvarint(math.MaxUint64)
		e.committed = int64(d.uvarint(math.MaxInt64))
		if version >= 2 {
			e.records = int64(d.uvarint(math.MaxInt64))
		}
		e.kind = decompress.Kind(d.uvarint(uint64(decompress.Zstd)))
		e.key.dev = d.uvarint(math.MaxUint64)
		e.key.ino = d.uvarint(math.MaxUint64)
		e.path = string(d.bytes(d.uvarint(cpMaxPath)))
		e.fp = d.bytes(d.uvarint(cpMaxFP))
		nc := d.uvarint(maxChecks)
		for range nc {
			off := int64(d.uvarint(math.MaxInt64))
			s := d.bytes(8)
			if d.err != nil {
				break
			}
			e.checks = append(e.checks, check{off: off, sum: binary.LittleEndian.Uint64(s)})
		}
		if d.err != nil {
			return nil, d.err
		}
		if e.id == 0 || seen[e.id] || e.kind == decompress.Auto || len(e.fp) == 0 ||
			!slices.IsSortedFunc(e.checks, func(a, b check) int { return cmp.Compare(a.off, b.off) }) {
			return nil, errCorrupt
		}
		seen[e.id] = true
		es = append(es, e)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return es, nil
}
