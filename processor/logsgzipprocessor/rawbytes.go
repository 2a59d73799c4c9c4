package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import (
	"reflect"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// pdata offers no way to read a Bytes body without copying it (AsRaw copies)
// nor to point a body at bytes we already hold (FromRaw copies). Both copies
// would cost an allocation per record, so when pcommon.ByteSlice has the
// layout this code was written against — {orig *[]byte; state *State} — we
// use its orig pointer directly, exactly as pdata's own FromRaw and MoveTo do.
// The layout is checked once at start-up with reflection and a round trip;
// if a future pdata changes it, directAccess is false and the processor falls
// back to the public, copying API (still correct, a little slower).
var directAccess = byteSliceLayoutMatches() && byteSliceRoundTrips()

func byteSliceLayoutMatches() bool {
	t := reflect.TypeFor[pcommon.ByteSlice]()
	return t.Kind() == reflect.Struct &&
		t.NumField() == 2 &&
		t.Field(0).Offset == 0 &&
		t.Field(0).Type == reflect.TypeFor[*[]byte]() &&
		t.Field(1).Type.Kind() == reflect.Pointer
}

// byteSliceRoundTrips checks that origOf really reaches the bytes pdata sees,
// both for reading and for writing. Only called once the layout matches, so
// the dereference is safe.
func byteSliceRoundTrips() bool {
	v := pcommon.NewValueBytes()
	v.Bytes().FromRaw([]byte("probe"))
	orig := origOf(v.Bytes())
	if string(*orig) != "probe" {
		return false
	}
	*orig = []byte("ok")
	return v.Bytes().Len() == 2 && v.Bytes().At(0) == 'o' && v.Bytes().At(1) == 'k'
}

func origOf(bs pcommon.ByteSlice) *[]byte {
	return *(**[]byte)(unsafe.Pointer(&bs))
}

// stringBytes views s as bytes without copying. The view is only ever read
// (by the gzip writer and the magic check), never written or retained.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// readBytes returns the bytes of bs, without copying when direct.
func readBytes(bs pcommon.ByteSlice, direct bool) []byte {
	if direct {
		return *origOf(bs)
	}
	return bs.AsRaw()
}

// setBytes makes body a Bytes body holding b. When direct, body takes b
// itself (the caller must not touch b afterwards); otherwise b is copied,
// into the body's existing capacity when it already is a large enough
// Bytes body.
func setBytes(body pcommon.Value, b []byte, direct bool) {
	var bs pcommon.ByteSlice
	if body.Type() == pcommon.ValueTypeBytes {
		bs = body.Bytes()
	} else {
		bs = body.SetEmptyBytes()
	}
	if direct {
		*origOf(bs) = b
		return
	}
	bs.FromRaw(b)
}
