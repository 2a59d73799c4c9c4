package mergelogreceiver

import "github.com/mergelog/otelcol-mergelog/internal/textcoding"

// Encoding is the files' character encoding, named as file_log names it (case does not matter):
// utf-8 (invalid bytes become U+FFFD), utf-8-raw (bytes kept as they are), nop (the body is a
// Bytes value), utf-16 (little endian, as file_log takes it), or any name of the IANA index of
// golang.org/x/text, the library file_log decodes with (see internal/textcoding).
type Encoding string

const (
	EncodingUTF8 Encoding = textcoding.UTF8
	EncodingRaw  Encoding = textcoding.Raw
	EncodingNop  Encoding = textcoding.Nop
)

// UnmarshalText resolves file_log's aliases (utf8, ascii, utf-16, any case) and checks that any
// other name is one the IANA index decodes.
func (e *Encoding) UnmarshalText(text []byte) error {
	if _, err := textcoding.Resolve(string(text)); err != nil {
		return err
	}
	*e = Encoding(textcoding.Canonical(string(text)))
	return nil
}

func (e Encoding) validate() error {
	_, err := textcoding.Resolve(string(e))
	return err
}

// validUTF8 reports whether bodies must be valid UTF-8 and are not decoded otherwise.
func (e Encoding) validUTF8() bool {
	c, _ := textcoding.Resolve(string(e))
	return c.ValidUTF8()
}
