package filetrack

import (
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestOrderingSelects follows only the selection: per group, the newest by the date in the
// name (top_n 1); a path without the group or the key is not followed; a newer file taking
// over lets the old one go once read to its end (lines appended to it before then are read).
func TestOrderingSelects(t *testing.T) {
	day := func(key string) (int64, bool) {
		at, err := time.Parse("20060102", key)
		return at.UnixNano(), err == nil
	}
	h := newHarness(t, Options{StartAtBeginning: true, Ordering: &Ordering{
		Regex:   regexp.MustCompile(`(?P<svc>[a-z]+)-(?P<day>\d{8})\.log$`),
		GroupBy: regexp.MustCompile(`/([a-z]+)-[^/]*$`),
		SortBy:  []Sort{{Kind: SortTimestamp, RegexKey: "day", Time: day}},
		TopN:    1,
	}})
	for _, name := range []string{"api-20240101.log", "api-20240102.log", "db-20231231.log", "db-2024.log", "other.log"} {
		testkit.WriteFile(t, h.path(name), name+"\n")
	}
	h.rounds(2)
	h.expect([]string{"api-20240102.log", "db-20231231.log"})

	testkit.AppendFile(t, h.path("api-20240102.log"), "more\n")
	testkit.WriteFile(t, h.path("api-20240103.log"), "api-20240103.log\n")
	h.rounds(3)
	h.expect([]string{"api-20240102.log", "more", "db-20231231.log", "api-20240103.log"})
}

// TestOrderingMtimeAndNumeric: the last sort decides first, earlier ones break its ties; top_n
// 0 follows every selected path.
func TestOrderingMtimeAndNumeric(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, Ordering: &Ordering{
		Regex:  regexp.MustCompile(`app\.(?P<n>\d+)\.log$`),
		SortBy: []Sort{{Kind: SortNumeric, RegexKey: "n", Ascending: true}, {Kind: SortMtime}},
		TopN:   2,
	}})
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{"app.1.log", "app.2.log", "app.10.log"} {
		testkit.WriteFile(t, h.path(name), name+"\n")
	}
	// app.1 oldest; app.2 and app.10 tie on mtime: the numeric sort before puts 2 first.
	must(t, os.Chtimes(h.path("app.1.log"), old, old))
	must(t, os.Chtimes(h.path("app.2.log"), old.Add(time.Minute), old.Add(time.Minute)))
	must(t, os.Chtimes(h.path("app.10.log"), old.Add(time.Minute), old.Add(time.Minute)))
	h.rounds(2)
	h.expect([]string{"app.2.log", "app.10.log"})
}

func TestOrderingValidates(t *testing.T) {
	for name, o := range map[string]*Ordering{
		"key not a group": {Regex: regexp.MustCompile(`(?P<a>\d+)`), SortBy: []Sort{{Kind: SortNumeric, RegexKey: "b"}}},
		"no regex":        {SortBy: []Sort{{Kind: SortAlphabetical, RegexKey: "b"}}},
		"no time parser":  {Regex: regexp.MustCompile(`(?P<a>\d+)`), SortBy: []Sort{{Kind: SortTimestamp, RegexKey: "a"}}},
	} {
		if _, err := New(Options{Include: []string{"*"}, Ordering: o}); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}
