package timestamp

// Readers of the fields the formats share: digits, fractions, month abbreviations. They index
// unchecked; the parsers check lengths first.

// num2 reads exactly two digits at b[i:], or -1.
func num2(b []byte, i int) int {
	d0, d1 := uint(b[i]-'0'), uint(b[i+1]-'0')
	if d0 > 9 || d1 > 9 {
		return -1
	}
	return int(d0*10 + d1)
}

func isDigit(c byte) bool { return c-'0' <= 9 }

// fraction reads the digits of a fraction at b[i:] and returns nanoseconds and the index after
// the digits; digits past the ninth are read and dropped, as time.Parse does.
func fraction(b []byte, i int) (nsec, end int) {
	n := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		if n < 9 {
			nsec = nsec*10 + int(b[i]-'0')
			n++
		}
	}
	for ; n < 9; n++ {
		nsec *= 10
	}
	return nsec, i
}

// hasFraction reports whether b[i:] starts with '.' or ',' and a digit.
func hasFraction(b []byte, i int) bool {
	return i+1 < len(b) && (b[i] == '.' || b[i] == ',') && isDigit(b[i+1])
}

// month3 maps a three-letter month abbreviation, any case, to 1-12, or 0.
func month3(a, b, c byte) int {
	switch uint32(a|0x20)<<16 | uint32(b|0x20)<<8 | uint32(c|0x20) {
	case 'j'<<16 | 'a'<<8 | 'n':
		return 1
	case 'f'<<16 | 'e'<<8 | 'b':
		return 2
	case 'm'<<16 | 'a'<<8 | 'r':
		return 3
	case 'a'<<16 | 'p'<<8 | 'r':
		return 4
	case 'm'<<16 | 'a'<<8 | 'y':
		return 5
	case 'j'<<16 | 'u'<<8 | 'n':
		return 6
	case 'j'<<16 | 'u'<<8 | 'l':
		return 7
	case 'a'<<16 | 'u'<<8 | 'g':
		return 8
	case 's'<<16 | 'e'<<8 | 'p':
		return 9
	case 'o'<<16 | 'c'<<8 | 't':
		return 10
	case 'n'<<16 | 'o'<<8 | 'v':
		return 11
	case 'd'<<16 | 'e'<<8 | 'c':
		return 12
	}
	return 0
}
