package decompress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// ErrMemoryCap is wrapped by the error of an xz stream with a block header that asks for an
// LZMA2 dictionary above Options.XzMaxDict: the stream is refused there, before the dictionary
// is allocated. (A zstd frame asking for a window above 128 MiB fails as the decoder reports it,
// zstd.ErrWindowSizeExceeded, which it also reports for some corrupt blocks.)
var ErrMemoryCap = errors.New("more memory than the cap")

// xzGate stands between the xz decoder and its input, and follows the .xz container as the
// bytes pass (stream header, block headers, LZMA2 chunk headers, block padding and check,
// index, stream footer, stream padding; the xz file format 1.2.0). A block header reaches the
// decoder only once the gate has read it whole and found its dictionary within the cap:
// ulikunitz/xz allocates the dictionary a header asks for, up to 4 GiB, and its DictCap is a
// minimum. The gate checks what it needs to follow the structure and leaves the rest (CRCs of
// the data, the index's records, the footer's fields) to the decoder, which reads the same
// bytes after it. Its Read reports io.EOF only where a stream may end, after a stream footer
// and its padding, so a stream cut anywhere reads as io.ErrUnexpectedEOF.
type xzGate struct {
	br      *bufio.Reader
	maxDict int64
	n       int64   // bytes of the current part left to pass on before the next is read
	state   xzState // what follows the current part
	check   int     // check size of the current stream, from its flags
	comp    int64   // compressed size of the current block so far, for its padding
	streams int     // streams begun, for errors
	blocks  int     // blocks begun in the current stream
	pad     int64   // zero bytes of stream padding after the last footer
	// The index, read byte by byte: its varints are counted, not kept.
	idxLen  int64  // bytes of the index so far, indicator included
	idxLeft uint64 // varints still to read; 0 once the records are done
	idxHave bool   // the record count has been read
	err     error  // sticky, io.EOF included
}

type xzState uint8

const (
	xzStreamHeader xzState = iota // the first stream header
	xzBlockOrIndex                // a block header, or the index indicator
	xzChunk                       // an LZMA2 chunk header, or the end of the block's data
	xzBlockTail                   // block padding and check
	xzIndex                       // index fields, after the indicator
	xzStreamFooter                // the stream footer
	xzAfterStream                 // stream padding, another stream header, or the end
	xzBadHeader                   // after a damaged stream header
)

const (
	xzHeaderLen  = 12
	xzFooterLen  = 12
	lzma2ID      = 0x21
	maxXzDictSet = 40 // the largest dictionary size code: 4 GiB - 1
)

func newXzGate(br *bufio.Reader, maxDict int64) *xzGate {
	return &xzGate{br: br, maxDict: maxDict}
}

// done reports whether the input ended where a stream may end.
func (g *xzGate) done() bool { return g.err == io.EOF }

func (g *xzGate) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	for g.n == 0 {
		if err := g.next(); err != nil {
			if err == io.EOF && g.state != xzAfterStream {
				err = io.ErrUnexpectedEOF
			}
			g.err = err
			return 0, err
		}
	}
	if int64(len(p)) > g.n {
		p = p[:g.n]
	}
	k, err := g.br.Read(p)
	g.n -= int64(k)
	if err == io.EOF && g.n > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		g.err = err
	}
	return k, err
}

// peek returns the next n bytes, io.ErrUnexpectedEOF if the input ends before them.
func (g *xzGate) peek(n int) ([]byte, error) {
	b, err := g.br.Peek(n)
	if len(b) < n {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// next reads the header of the next part of the input and sets g.n to its length (header
// included: the decoder reads it too); io.EOF at a clean end.
func (g *xzGate) next() error {
	switch g.state {
	case xzStreamHeader:
		return g.streamHeader()
	case xzBlockOrIndex:
		b, err := g.peek(1)
		if err != nil {
			return err
		}
		if b[0] == 0 {
			g.n, g.state = 1, xzIndex
			g.idxLen, g.idxLeft, g.idxHave = 1, 1, false
			return nil
		}
		return g.blockHeader(int(b[0])*4 + 4)
	case xzChunk:
		return g.chunk()
	case xzBlockTail:
		g.n, g.state = (4-g.comp%4)%4+int64(g.check), xzBlockOrIndex
		if g.n == 0 {
			return g.next()
		}
		return nil
	case xzIndex:
		return g.index()
	case xzStreamFooter:
		g.n, g.state, g.pad = xzFooterLen, xzAfterStream, 0
		return nil
	case xzAfterStream:
		b, err := g.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF && g.pad%4 != 0 {
				return io.ErrUnexpectedEOF // padding comes in fours: more may follow
			}
			return err // io.EOF: the end
		}
		if b[0] != 0 {
			if g.pad%4 != 0 {
				return fmt.Errorf("xz: stream padding of %d bytes before stream %d, not a multiple of 4", g.pad, g.streams+1)
			}
			return g.streamHeader()
		}
		// Pass on the zeros buffered: the decoder reads padding 4 bytes at a time.
		b, _ = g.br.Peek(g.br.Buffered())
		k := 0
		for k < len(b) && b[k] == 0 {
			k++
		}
		g.n, g.pad = int64(k), g.pad+int64(k)
		return nil
	case xzBadHeader:
		return fmt.Errorf("xz: stream %d: bad stream header", g.streams)
	}
	return fmt.Errorf("decompress: xz gate in state %d", g.state)
}

func (g *xzGate) streamHeader() error {
	b, err := g.peek(xzHeaderLen)
	if err != nil {
		return err
	}
	g.streams++
	if !bytes.Equal(b[:len(magicXz)], magicXz) || b[6] != 0 || b[7]&0xf0 != 0 ||
		crc32.ChecksumIEEE(b[6:8]) != binary.LittleEndian.Uint32(b[8:12]) {
		// A stream header claims no memory: the decoder reads it and reports the
		// damage in its words, after the header as before; if it did not, the gate
		// would stop at the next read.
		g.n, g.state = xzHeaderLen, xzBadHeader
		return nil
	}
	id := int(b[7] & 0x0f)
	g.check = 0
	if id > 0 {
		g.check = 4 << ((id - 1) / 3) // 1-3: 4 bytes, 4-6: 8, 7-9: 16, 10-12: 32, 13-15: 64
	}
	g.n, g.state, g.blocks = xzHeaderLen, xzBlockOrIndex, 0
	return nil
}

// blockHeader checks the block header of size bytes and every LZMA2 dictionary it asks for.
func (g *xzGate) blockHeader(size int) error {
	b, err := g.peek(size)
	if err != nil {
		return err
	}
	g.blocks++
	where := xzWhere{g.blocks, g.streams}
	body := b[:size-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[size-4:]) {
		return fmt.Errorf("xz: %s: block header CRC mismatch", where)
	}
	flags := body[1]
	if flags&0x3c != 0 {
		return fmt.Errorf("xz: %s: reserved block flags set", where)
	}
	r := xzFields{b: body[2:]}
	if flags&0x40 != 0 {
		r.varint() // compressed size
	}
	if flags&0x80 != 0 {
		r.varint() // uncompressed size
	}
	filters := int(flags&3) + 1
	for i := range filters {
		id := r.varint()
		props := r.bytes(r.varint())
		if r.bad {
			break
		}
		if id != lzma2ID {
			if i == filters-1 {
				return fmt.Errorf("xz: %s: last filter %#x is not LZMA2", where, id)
			}
			continue
		}
		if len(props) != 1 || props[0] > maxXzDictSet {
			return fmt.Errorf("xz: %s: bad LZMA2 properties %x", where, props)
		}
		if dict := lzma2Dict(props[0]); dict > g.maxDict {
			return fmt.Errorf("xz: %s asks for a dictionary of %s: %w (%s)", where, sizeText(dict), ErrMemoryCap, sizeText(g.maxDict))
		}
	}
	if r.bad {
		return fmt.Errorf("xz: %s: block header fields overrun its size", where)
	}
	g.n, g.state, g.comp = int64(size), xzChunk, 0
	return nil
}

// xzWhere names a block in errors.
type xzWhere struct{ block, stream int }

func (w xzWhere) String() string { return fmt.Sprintf("block %d of stream %d", w.block, w.stream) }

// lzma2Dict decodes an LZMA2 dictionary size code, 0..40.
func lzma2Dict(c byte) int64 {
	if c == maxXzDictSet {
		return 1<<32 - 1
	}
	return int64(2|c&1) << (c/2 + 11)
}

// chunk reads an LZMA2 chunk header: the control byte, then for an uncompressed chunk its size,
// for an LZMA chunk its sizes and perhaps its properties byte.
func (g *xzGate) chunk() error {
	b, err := g.peek(1)
	if err != nil {
		return err
	}
	switch c := b[0]; {
	case c == 0: // the end of the block's data
		g.n, g.state = 1, xzBlockTail
	case c == 1 || c == 2:
		if b, err = g.peek(3); err != nil {
			return err
		}
		g.n = 3 + int64(binary.BigEndian.Uint16(b[1:3])) + 1
	case c >= 0x80:
		h := 5
		if c >= 0xc0 {
			h = 6
		}
		if b, err = g.peek(h); err != nil {
			return err
		}
		g.n = int64(h) + int64(binary.BigEndian.Uint16(b[3:5])) + 1
	default:
		return fmt.Errorf("xz: block %d of stream %d: bad LZMA2 chunk control byte %#x", g.blocks, g.streams, c)
	}
	g.comp += g.n
	return nil
}

// index follows the index after its indicator: the record count and the records (varints,
// scanned in what is buffered), then padding and CRC-32, then the footer.
func (g *xzGate) index() error {
	if g.idxLeft == 0 {
		g.n, g.state = (4-g.idxLen%4)%4+4, xzStreamFooter
		return nil
	}
	if _, err := g.peek(1); err != nil {
		return err
	}
	b, _ := g.br.Peek(g.br.Buffered())
	var k int
	for k < len(b) && g.idxLeft > 0 {
		c := b[k]
		k++
		if c&0x80 != 0 {
			continue
		}
		g.idxLeft--
		if !g.idxHave {
			// The count itself is checked by the decoder against the blocks it read: stop
			// here and take it as the number of records the blocks give.
			g.idxHave = true
			g.idxLeft = 2 * uint64(g.blocks)
		}
	}
	g.n, g.idxLen = int64(k), g.idxLen+int64(k)
	return nil
}

// xzFields reads the varints and byte strings of a block header.
type xzFields struct {
	b   []byte
	bad bool // ran past the end, or a varint longer than 9 bytes
}

func (r *xzFields) varint() uint64 {
	var x uint64
	for i := 0; i < 9; i++ {
		if len(r.b) == 0 {
			break
		}
		c := r.b[0]
		r.b = r.b[1:]
		x |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return x
		}
	}
	r.bad = true
	return 0
}

func (r *xzFields) bytes(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// sizeText writes a byte count in the largest binary unit that divides it, e.g. "64 MiB".
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
