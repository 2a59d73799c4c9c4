// Package textcoding turns the bytes of a file's lines into a record's text, by the encoding
// named as file_log names it: utf-8 (invalid bytes become U+FFFD as golang.org/x/text's decoder
// replaces them), utf-8-raw and nop (bytes kept as they are), or any name of the IANA index of
// golang.org/x/text, the library file_log decodes with (utf-16le, utf-16be, shift_jis, big5,
// iso-8859-1, windows-1252, …; utf-16 is little endian, as file_log takes it).
package textcoding

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// The names of the encodings that are not decoded.
const (
	UTF8 = "utf-8"
	Raw  = "utf-8-raw"
	Nop  = "nop"
)

// aliases are the names file_log resolves before the IANA index (its textutils overrides),
// lower-cased, as what they mean here.
var aliases = map[string]string{
	"":          UTF8,
	"utf-8":     UTF8,
	"utf8":      UTF8,
	"ascii":     UTF8,
	"us-ascii":  UTF8,
	"utf-8-raw": Raw,
	"utf8-raw":  Raw,
	"nop":       Nop,
	"utf-16":    "utf-16le",
	"utf16":     "utf-16le",
}

// Canonical is name with file_log's aliases resolved (any case): utf8 and ascii are utf-8,
// utf-16 is utf-16le; any other name as it is.
func Canonical(name string) string {
	if alias, ok := aliases[strings.ToLower(name)]; ok {
		return alias
	}
	return name
}

// Coding is an encoding resolved: how the bytes of a line become a record's text.
type Coding struct {
	validUTF8 bool              // utf-8: invalid bytes become U+FFFD
	charset   encoding.Encoding // any other text encoding: lines decoded to UTF-8; nil otherwise
	newline   []byte            // with charset: '\n' encoded in it, where lines are cut
}

// Resolve returns the coding of the encoding name, or an error naming it when the IANA index
// does not decode it or it cannot encode a newline.
func Resolve(name string) (Coding, error) {
	switch canonical := strings.ToLower(Canonical(name)); canonical {
	case UTF8:
		return Coding{validUTF8: true}, nil
	case Raw, Nop:
		return Coding{}, nil
	default:
		charset, err := ianaindex.IANA.Encoding(canonical)
		switch {
		case err != nil:
			return Coding{}, fmt.Errorf("unsupported encoding '%s'", name)
		case charset == nil:
			return Coding{}, fmt.Errorf("no charmap defined for encoding '%s'", name)
		case charset == unicode.UTF8:
			return Coding{validUTF8: true}, nil
		}
		newline, _, err := transform.Bytes(charset.NewEncoder(), []byte{'\n'})
		if err != nil || len(newline) == 0 {
			return Coding{}, fmt.Errorf("encoding '%s' cannot encode a newline", name)
		}
		return Coding{charset: charset, newline: newline}, nil
	}
}

// ValidUTF8 reports whether text must be made valid UTF-8 (AppendValid) and is not decoded.
func (c Coding) ValidUTF8() bool { return c.validUTF8 }

// Newline is '\n' in the encoding, where its lines are cut; nil for UTF-8 and the raw bytes.
func (c Coding) Newline() []byte { return c.newline }

// LineDecoder returns the decoder of lines for c, nil when lines are taken as they are.
func (c Coding) LineDecoder() *LineDecoder {
	if c.charset == nil {
		return nil
	}
	return &LineDecoder{dec: c.charset.NewDecoder()}
}

// LineDecoder decodes each line on its own, as file_log decodes each token: so a byte order mark
// at a file's start stays a U+FEFF at the start of its first line, as in file_log (its UTF-16
// decoders ignore byte order marks), and a line's bytes that cannot be decoded become U+FFFD.
type LineDecoder struct {
	dec *encoding.Decoder
	buf []byte // the last line decoded, reused
}

// Decode returns line in UTF-8, valid until the next call.
func (d *LineDecoder) Decode(line []byte) []byte {
	out, _, err := transform.Append(d.dec, d.buf[:0], line)
	if err != nil {
		// The decoders replace what they cannot decode; an error is a sequence cut short at the
		// line's end (an odd byte of UTF-16), which becomes one U+FFFD as a decoder makes it.
		out = append(out, "\uFFFD"...)
	}
	d.buf = out
	return out
}
