package timestamp

// parseRFC3339 reads yyyy-mm-dd[T ]HH:MM:SS[.frac][offset] from b's start; see the package
// documentation for the offsets it takes. n is the length read.
func parseRFC3339(b []byte, c *civil) (n int, ok bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	hi, lo := num2(b, 0), num2(b, 2)
	c.month, c.day = num2(b, 5), num2(b, 8)
	c.hour, c.min, c.sec = num2(b, 11), num2(b, 14), num2(b, 17)
	if hi < 0 || lo < 0 || uint(c.month-1) > 11 || c.day < 1 || uint(c.hour) > 23 || uint(c.min) > 59 || uint(c.sec) > 59 {
		return 0, false
	}
	c.year = hi*100 + lo
	i := 19
	if hasFraction(b, i) {
		c.nsec, i = fraction(b, i+1)
	}
	if i == len(b) {
		return i, true
	}
	switch b[i] {
	case 'Z':
		c.hasOffset = true
		return i + 1, true
	case '+', '-':
		c.offset, n, ok = zoneOffset(b, i)
		c.hasOffset = true
		return n, ok
	case ' ':
		j := i + 1
		for j < len(b) && b[j] == ' ' {
			j++
		}
		if off, n, shaped, valid := spacedOffset(b, j); shaped {
			c.offset, c.hasOffset = off, true
			return n, valid
		}
	}
	return i, true
}

// zoneOffset reads ±hh:mm, ±hhmm or ±hh at b[i:] (b[i] is the sign) and returns the offset and
// the index after it. Like %z, it tries the longer forms first.
func zoneOffset(b []byte, i int) (off, end int, ok bool) {
	if i+3 > len(b) {
		return 0, 0, false
	}
	h, m, j := num2(b, i+1), 0, i+3
	switch {
	case j < len(b) && b[j] == ':':
		if j+3 > len(b) {
			return 0, 0, false
		}
		m, j = num2(b, j+1), j+3
	case j < len(b) && isDigit(b[j]):
		if j+2 > len(b) {
			return 0, 0, false
		}
		m, j = num2(b, j), j+2
	}
	off, ok = makeOffset(b[i], h, m, 0)
	return off, j, ok
}

// spacedOffset looks for ±hhmm or ±hh:mm at b[i:] not followed by a digit. shaped says the text
// has that shape (so it is the offset); valid says the offset is in range.
func spacedOffset(b []byte, i int) (off, end int, shaped, valid bool) {
	if i+5 > len(b) || (b[i] != '+' && b[i] != '-') {
		return 0, 0, false, false
	}
	j := i + 3
	if b[j] == ':' {
		j++
	}
	end = j + 2
	if end > len(b) || num2(b, i+1) < 0 || num2(b, j) < 0 || (end < len(b) && isDigit(b[end])) {
		return 0, 0, false, false
	}
	off, valid = makeOffset(b[i], num2(b, i+1), num2(b, j), 0)
	return off, end, true, valid
}

// RFC3339Prefix reads the RFC 3339 timestamp, offset required, at the start of b and returns
// its instant and its length: for prefixes that other software writes, such as container
// runtimes' log lines.
func RFC3339Prefix(b []byte) (unixNano int64, n int, ok bool) {
	var c civil
	if n, ok = parseRFC3339(b, &c); !ok || !c.hasOffset {
		return 0, 0, false
	}
	unixNano, ok = c.instant()
	return unixNano, n, ok
}
