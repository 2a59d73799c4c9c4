package linestart

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// benchLine pads head with filler to n bytes, like the long lines of the Logtail article.
func benchLine(head string, n int) string {
	const filler = "Exception in thread \"main\" java.lang.NullPointerException at com.example.myproject.Book.getTitle "
	return (head + strings.Repeat(filler, n/len(filler)+1))[:n]
}

// BenchmarkMatch measures one line-start check (ns/op is ns per line) on start lines and on
// continuation lines, beside the regexp package's MatchString of the original pattern.
func BenchmarkMatch(b *testing.B) {
	const cont = "    at com.example.myproject.Book.getTitle(Book.java:16) "
	patterns := []struct{ name, pattern, start string }{
		{"cnt.*", `cnt.*`, "cnt:13472391,thread:2,log:"},
		{"^cnt", `^cnt`, "cnt:13472391,thread:2,log:"},
		{"date", `\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}.*`, "2024-05-06 12:34:56.789 ERROR [main] "},
	}
	for _, p := range patterns {
		ours, err := Compile(p.pattern)
		if err != nil {
			b.Fatal(err)
		}
		std := regexp.MustCompile(p.pattern)
		for _, kind := range []struct{ name, head string }{{"start", p.start}, {"cont", cont}} {
			for _, n := range []int{64, 1 << 10, 16 << 10, 64 << 10} {
				line := benchLine(kind.head, n)
				want := kind.name == "start"
				b.Run(fmt.Sprintf("pat=%s/line=%s/len=%d/impl=stdlib", p.name, kind.name, n), func(b *testing.B) {
					for b.Loop() {
						if std.MatchString(line) != want {
							b.Fatal("wrong answer")
						}
					}
				})
				lineBytes := []byte(line)
				b.Run(fmt.Sprintf("pat=%s/line=%s/len=%d/impl=ours", p.name, kind.name, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if ours.Match(lineBytes) != want {
							b.Fatal("wrong answer")
						}
					}
				})
			}
		}
	}
}
