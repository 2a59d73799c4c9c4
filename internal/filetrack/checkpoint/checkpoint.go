// Package checkpoint is the encoding of filetrack's saved state: one record
// per identity, with the offset committed downstream.
//
// Format, version 2. Integers are unsigned varints unless said:
//
//	"MLFT" version count
//	count × { id committed records kind dev ino len(path) path len(fp) fp
//	          nchecks nchecks × { off sum(8 bytes, little endian) } }
//	CRC-32C of everything before (4 bytes, little endian)
//
// Version 1, without records, is still decoded (records 0).
package checkpoint

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

const (
	magic   = "MLFT"
	version = 2
	// Decoding limits, far above what encoding produces, so that garbage
	// cannot make Decode allocate much.
	maxFP   = 1 << 20
	maxPath = 1 << 16
)

// MaxChecks is the most check points an identity keeps; Decode rejects more.
const MaxChecks = 6

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Identity is the saved state of one identity.
type Identity struct {
	ID        uint64
	Committed int64 // offset in decompressed bytes; math.MaxInt64 for a compressed file skipped unread
	Records   int64 // the caller's record count at Committed
	Kind      decompress.Kind
	Dev, Ino  uint64 // of the last file read
	Path      string
	FP        []byte // fingerprint
	Checks    []Check
}

// Check is a check point: the hash of the bytes before offset Off.
type Check struct {
	Off int64
	Sum uint64
}

// Encode encodes ids in the current version.
func Encode(ids []Identity) []byte {
	b := append([]byte(magic), version)
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, e := range ids {
		b = binary.AppendUvarint(b, e.ID)
		b = binary.AppendUvarint(b, uint64(e.Committed))
		b = binary.AppendUvarint(b, uint64(e.Records))
		b = binary.AppendUvarint(b, uint64(e.Kind))
		b = binary.AppendUvarint(b, e.Dev)
		b = binary.AppendUvarint(b, e.Ino)
		b = binary.AppendUvarint(b, uint64(len(e.Path)))
		b = append(b, e.Path...)
		b = binary.AppendUvarint(b, uint64(len(e.FP)))
		b = append(b, e.FP...)
		b = binary.AppendUvarint(b, uint64(len(e.Checks)))
		for _, c := range e.Checks {
			b = binary.AppendUvarint(b, uint64(c.Off))
			b = binary.LittleEndian.AppendUint64(b, c.Sum)
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

// Decode decodes a checkpoint of version 1 or 2. It rejects what Encode
// cannot have produced from a valid state: a zero or repeated ID, an empty
// fingerprint, kind Auto, check points out of order. The fingerprints
// returned share data's memory.
func Decode(data []byte) ([]Identity, error) {
	if len(data) < len(magic)+1+4 || string(data[:len(magic)]) != magic {
		return nil, errors.New("filetrack: not a checkpoint")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errCorrupt
	}
	v := body[len(magic)]
	if v != 1 && v != version {
		return nil, fmt.Errorf("filetrack: checkpoint version %d not supported (want 1 or %d)", v, version)
	}
	d := decoder{b: body[len(magic)+1:]}
	// Every identity takes at least 9 bytes: a bound on count before allocating.
	n := d.uvarint(uint64(len(d.b)) / 9)
	ids := make([]Identity, 0, n)
	seen := make(map[uint64]bool, n)
	for range n {
		var e Identity
		e.ID = d.uvarint(math.MaxUint64)
		e.Committed = int64(d.uvarint(math.MaxInt64))
		if v >= 2 {
			e.Records = int64(d.uvarint(math.MaxInt64))
		}
		e.Kind = decompress.Kind(d.uvarint(uint64(decompress.Zstd)))
		e.Dev = d.uvarint(math.MaxUint64)
		e.Ino = d.uvarint(math.MaxUint64)
		e.Path = string(d.bytes(d.uvarint(maxPath)))
		e.FP = d.bytes(d.uvarint(maxFP))
		nc := d.uvarint(MaxChecks)
		for range nc {
			off := int64(d.uvarint(math.MaxInt64))
			s := d.bytes(8)
			if d.err != nil {
				break
			}
			e.Checks = append(e.Checks, Check{Off: off, Sum: binary.LittleEndian.Uint64(s)})
		}
		if d.err != nil {
			return nil, d.err
		}
		if e.ID == 0 || seen[e.ID] || e.Kind == decompress.Auto || len(e.FP) == 0 ||
			!slices.IsSortedFunc(e.Checks, func(a, b Check) int { return cmp.Compare(a.Off, b.Off) }) {
			return nil, errCorrupt
		}
		seen[e.ID] = true
		ids = append(ids, e)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return ids, nil
}

const indexMagic = "MLFI"

// EncodeIndex encodes a list of identity IDs: which per-identity keys a checkpoint has.
func EncodeIndex(ids []uint64) []byte {
	b := append([]byte(indexMagic), 1)
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendUvarint(b, id)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// DecodeIndex decodes what EncodeIndex encoded.
func DecodeIndex(data []byte) ([]uint64, error) {
	if len(data) < len(indexMagic)+1+4 || string(data[:len(indexMagic)]) != indexMagic || data[len(indexMagic)] != 1 {
		return nil, errCorrupt
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, errCorrupt
	}
	d := decoder{b: body[len(indexMagic)+1:]}
	n := d.uvarint(uint64(len(d.b)))
	ids := make([]uint64, 0, n)
	for range n {
		ids = append(ids, d.uvarint(math.MaxUint64))
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errCorrupt
	}
	return ids, nil
}
