package filetrack

import (
	"hash/fnv"
	"os"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// FILETRACK_TEST_WATCH=oracle runs every harness test with directory watches
// on, the full listing an hour apart, and the watches replaced by an oracle
// that reports exactly the paths whose file changed (stat and content): the
// narrow polls between full listings (see visits) must give what full listings
// give. make test runs the package both ways.
const watchOracleEnv = "FILETRACK_TEST_WATCH"

// oracleHints reports, at each Changes, the matched paths that appeared, went,
// or whose file or content differs from the last call.
type oracleHints struct {
	include []string
	last    map[string]pathState
}

type pathState struct {
	lstat, stat fileKey
	size        int64
	mtime       time.Time
	sum         uint64
}

func useWatchOracle(opts *Options) bool {
	if os.Getenv(watchOracleEnv) != "oracle" || opts.Watch {
		return false
	}
	opts.Watch, opts.FullScanInterval = true, time.Hour
	return true
}

func (o *oracleHints) Sync([]string) (int, error) { return 0, nil }

func (o *oracleHints) Close() error { return nil }

func (o *oracleHints) Changes() ([]string, bool) {
	now := map[string]pathState{}
	for _, pat := range o.include {
		m, _ := doublestar.FilepathGlob(pat)
		for _, p := range m {
			now[p] = stateOf(p)
		}
	}
	var changed []string
	for p, s := range now {
		if prev, ok := o.last[p]; !ok || prev != s {
			changed = append(changed, p)
		}
	}
	for p := range o.last {
		if _, ok := now[p]; !ok {
			changed = append(changed, p)
		}
	}
	o.last = now
	return changed, false
}

func stateOf(p string) pathState {
	var s pathState
	if info, err := os.Lstat(p); err == nil {
		s.lstat, _ = keyOf(p, info)
	}
	info, err := os.Stat(p)
	if err != nil {
		return s
	}
	s.stat, _ = keyOf(p, info)
	s.size, s.mtime = info.Size(), info.ModTime()
	if info.Mode().IsRegular() && info.Size() < 4<<20 {
		if b, err := os.ReadFile(p); err == nil {
			h := fnv.New64a()
			_, _ = h.Write(b)
			s.sum = h.Sum64()
		}
	}
	return s
}
