package timestamp

// parseCLF reads dd/Mon/yyyy:HH:MM:SS ±hhmm from b's start (the text after '['): fixed
// positions up to the seconds, so each field is a couple of byte operations. n is the length read.
//
//	10/Oct/2000:13:55:36 -0700
//	0123456789012345678901234 5
func parseCLF(b []byte, c *civil) (n int, ok bool) {
	if len(b) < 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' {
		return 0, false
	}
	c.day, c.month = num2(b, 0), month3(b[3], b[4], b[5])
	hi, lo := num2(b, 7), num2(b, 9)
	c.hour, c.min, c.sec = num2(b, 12), num2(b, 15), num2(b, 18)
	// num2 gives -1 for non-digits, which the unsigned comparisons reject with the range.
	if c.day < 1 || c.month == 0 || hi < 0 || lo < 0 || uint(c.hour) > 23 || uint(c.min) > 59 || uint(c.sec) > 59 {
		return 0, false
	}
	c.year = hi*100 + lo
	i := 20
	if hasFraction(b, i) { // not Apache's default, but written by custom %{...}t formats
		c.nsec, i = fraction(b, i+1)
	}
	if i >= len(b) || b[i] != ' ' {
		return 0, false
	}
	for i++; i < len(b) && b[i] == ' '; i++ { // a run of spaces, as time.Parse takes it
	}
	if i+5 > len(b) {
		return 0, false
	}
	c.offset, ok = makeOffset(b[i], num2(b, i+1), num2(b, i+3), 0)
	c.hasOffset = true
	return i + 5, ok
}

// makeOffset builds seconds east of UTC from a sign and fields (-1 when not digits).
func makeOffset(sign byte, h, m, s int) (int, bool) {
	if h < 0 || uint(m) > 59 || uint(s) > 59 {
		return 0, false
	}
	off := h*3600 + m*60 + s
	if off > maxOffset {
		return 0, false
	}
	switch sign {
	case '+':
		return off, true
	case '-':
		return -off, true
	}
	return 0, false
}
