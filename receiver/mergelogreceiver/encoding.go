package mergelogreceiver

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding is the files' character encoding, named as file_log names it (case does not matter):
// utf-8 (invalid bytes become U+FFFD), utf-8-raw (bytes kept as they are), nop (the body is a
// Bytes value), utf-16 (little endian, as file_log takes it), or any name of the IANA index of
// golang.org/x/text, the library file_log decodes with (utf-16le, utf-16be, shift_jis, big5,
// iso-8859-1, windows-1252, …).
type Encoding string

const (
	EncodingUTF8 Encoding = "utf-8"
	EncodingRaw  Encoding = "utf-8-raw"
	EncodingNop  Encoding = "nop"
)

// encodingAliases are the names file_log resolves before the IANA index (its textutils
// overrides), lower-cased, as what they mean here.
var encodingAliases = map[string]Encoding{
	"":          EncodingUTF8,
	"utf-8":     EncodingUTF8,
	"utf8":      EncodingUTF8,
	"ascii":     EncodingUTF8,
	"us-ascii":  EncodingUTF8,
	"utf-8-raw": EncodingRaw,
	"utf8-raw":  EncodingRaw,
	"nop":       EncodingNop,
	"utf-16":    "utf-16le",
	"utf16":     "utf-16le",
}

// UnmarshalText resolves file_log's aliases (utf8, ascii, utf-16, any case) and checks that any
// other name is one the IANA index decodes.
func (e *Encoding) UnmarshalText(text []byte) error {
	v := Encoding(text)
	if _, err := v.coding(); err != nil {
		return err
	}
	if alias, ok := encodingAliases[strings.ToLower(string(text))]; ok {
		v = alias
	}
	*e = v
	return nil
}

func (e Encoding) validate() error {
	_, err := e.coding()
	return err
}

// validUTF8 reports whether bodies must be valid UTF-8 and are not decoded otherwise.
func (e Encoding) validUTF8() bool {
	c, _ := e.coding()
	return c.validUTF8
}

// textCoding is an Encoding resolved: how the bytes of a line become a body's text.
type textCoding struct {
	validUTF8 bool              // utf-8: invalid bytes become U+FFFD
	charset   encoding.Encoding // any other text encoding: lines decoded to UTF-8; nil otherwise
	newline   []byte            // with charset: '\n' encoded in it, where lines are cut
}

func (e Encoding) coding() (textCoding, error) {
	name := Encoding(strings.ToLower(string(e)))
	if alias, ok := encodingAliases[string(name)]; ok {
		name = alias
	}
	switch name {
	case EncodingUTF8:
		return textCoding{validUTF8: true}, nil
	case EncodingRaw, EncodingNop:
		return textCoding{}, nil
	}
	charset, err := ianaindex.IANA.Encoding(string(name))
	switch {
	case err != nil:
		return textCoding{}, fmt.Errorf("unsupported encoding '%s'", string(e))
	case charset == nil:
		return textCoding{}, fmt.Errorf("no charmap defined for encoding '%s'", string(e))
	case charset == unicode.UTF8:
		return textCoding{validUTF8: true}, nil
	}
	newline, _, err := transform.Bytes(charset.NewEncoder(), []byte{'\n'})
	if err != nil || len(newline) == 0 {
		return textCoding{}, fmt.Errorf("encoding '%s' cannot encode a newline", string(e))
	}
	return textCoding{charset: charset, newline: newline}, nil
}

// lineDecoder returns the decoder of lines for c, nil when lines are taken as they are.
func (c textCoding) lineDecoder() *lineDecoder {
	if c.charset == nil {
		return nil
	}
	return &lineDecoder{dec: c.charset.NewDecoder()}
}

// lineDecoder decodes each line on its own, as file_log decodes each token: so a byte order mark
// at a file's start stays a U+FEFF at the start of its first line, as in file_log (its UTF-16
// decoders ignore byte order marks), and a line's bytes that cannot be decoded become U+FFFD.
type lineDecoder struct {
	dec *encoding.Decoder
	buf []byte // the last line decoded, reused
}

// decode returns line in UTF-8, valid until the next call.
func (d *lineDecoder) decode(line []byte) []byte {
	out, _, err := transform.Append(d.dec, d.buf[:0], line)
	if err != nil {
		// The decoders replace what they cannot decode; an error is a sequence cut short at the
		// line's end (an odd byte of UTF-16), which becomes one U+FFFD as a decoder makes it.
		out = append(out, "\uFFFD"...)
	}
	d.buf = out
	return out
}
