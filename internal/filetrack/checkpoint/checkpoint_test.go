package checkpoint

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"math"
	"reflect"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

func withCRC(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// The bytes of version 2 are fixed: checkpoints written by earlier builds
// must restore, and later builds must read what this one writes.
func TestEncodeGolden(t *testing.T) {
	ids := []Identity{
		{
			ID: 1, Committed: 1234, Records: 17, Kind: decompress.Plain, Dev: 2049, Ino: 131077,
			Path: "/var/log/app.log", FP: []byte("2000-01-01 first line"),
			Checks: []Check{{Off: 1100, Sum: 0x0123456789abcdef}, {Off: 5000, Sum: 42}},
		},
		{
			ID: 300, Committed: math.MaxInt64, Kind: decompress.Zstd, Dev: 7, Ino: 1 << 40,
			Path: "/var/log/app.log.1.zst", FP: []byte("x"),
		},
	}
	for _, c := range []struct {
		ids  []Identity
		want string
	}{
		{ids, "4d4c4654020201d20911018110858008102f7661722f6c6f672f6170702e6c6f6715323030302d30312d3031206669727374206c696e6502cc08efcdab896745230188272a00000000000000ac02ffffffffffffffff7f000507808080808020162f7661722f6c6f672f6170702e6c6f672e312e7a73740178002906704f"},
		{nil, "4d4c46540200ad982117"},
	} {
		got := Encode(c.ids)
		if hex.EncodeToString(got) != c.want {
			t.Fatalf("Encode(%+v) = %x, want %s", c.ids, got, c.want)
		}
		back, err := Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(c.ids) || len(c.ids) > 0 && !reflect.DeepEqual(back, c.ids) {
			t.Fatalf("Decode = %+v, want %+v", back, c.ids)
		}
	}
}

// A version 1 checkpoint (before record counts) still restores, with no records counted.
func TestDecodeVersion1(t *testing.T) {
	v2 := Encode([]Identity{{ID: 7, Committed: 5, Records: 3, Kind: decompress.Plain, FP: []byte("x"), Path: "p"}})
	// Version 1 is version 2 without the records varint after committed (here: one byte).
	head := len(magic) + 1 + 1 + 1 + 1 // magic, version, count, id, committed
	v1 := append([]byte(nil), v2[:head]...)
	v1[len(magic)] = 1
	v1 = withCRC(append(v1, v2[head+1:len(v2)-4]...))
	es, err := Decode(v1)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].ID != 7 || es[0].Committed != 5 || es[0].Records != 0 || es[0].Path != "p" {
		t.Fatalf("decoded %+v", es)
	}
}

func TestIndexRoundTrip(t *testing.T) {
	for _, ids := range [][]uint64{nil, {1}, {1, 2, 300, 1 << 40}} {
		data := EncodeIndex(ids)
		got, err := DecodeIndex(data)
		if err != nil {
			t.Fatalf("%v: %v", ids, err)
		}
		if len(got) != len(ids) {
			t.Fatalf("%v: got %v", ids, got)
		}
		for i := range ids {
			if got[i] != ids[i] {
				t.Fatalf("%v: got %v", ids, got)
			}
		}
		for cut := range len(data) {
			if _, err := DecodeIndex(data[:cut]); err == nil {
				t.Fatalf("%v cut at %d: decoded", ids, cut)
			}
		}
		flipped := append([]byte(nil), data...)
		flipped[len(flipped)/2] ^= 0x40
		if _, err := DecodeIndex(flipped); err == nil {
			t.Fatalf("%v with a byte flipped: decoded", ids)
		}
	}
}
