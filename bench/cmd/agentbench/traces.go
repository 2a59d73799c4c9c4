package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
)

// traceTree is podTree with one entry in twenty a stack trace on stderr, a CRI line per line:
// Java, Python and Go in turn, each carrying its entry's seq in one of its lines, so that the
// gateway counts a trace joined into one record once, and its lines as records of their own
// (detection off) too.
func traceTree(dir string, size int64, pods int, seed uint64) (workload, error) {
	r := rand.New(rand.NewPCG(seed, 4))
	wl := workload{name: "traces", root: filepath.Join(dir, "traces"), about: "pod logs, 5 % of entries stack traces"}
	return criTree(wl, r, size, pods, func(seq int) string {
		if r.IntN(20) != 0 {
			return message(r, seq)
		}
		return stackTrace(r, seq)
	})
}

// stackTrace is a trace of 5–14 lines as Java, Python or Go print them, with seq in it.
func stackTrace(r *rand.Rand, seq int) string {
	frames := 3 + r.IntN(10)
	var b strings.Builder
	switch seq % 3 {
	case 0:
		fmt.Fprintf(&b, "java.lang.IllegalStateException: order seq=%09d in state SHIPPED", seq)
		for i := range frames {
			fmt.Fprintf(&b, "\n\tat com.example.shop.OrderService.step%d(OrderService.java:%d)", i, 100+r.IntN(900))
		}
		b.WriteString("\n\t... 12 more")
	case 1:
		b.WriteString("Traceback (most recent call last):")
		for i := range frames {
			fmt.Fprintf(&b, "\n  File \"/app/shop/orders.py\", line %d, in step%d\n    return step%d(order)", 10+r.IntN(400), i, i+1)
		}
		fmt.Fprintf(&b, "\nKeyError: 'order seq=%09d'", seq)
	default:
		fmt.Fprintf(&b, "panic: order seq=%09d: index out of range [3] with length 3\n\ngoroutine %d [running]:", seq, 1+r.IntN(100))
		for i := range frames {
			fmt.Fprintf(&b, "\nmain.step%d(...)\n\t/app/shop/orders.go:%d +0x%x", i, 10+r.IntN(400), r.IntN(4096))
		}
	}
	return b.String()
}
