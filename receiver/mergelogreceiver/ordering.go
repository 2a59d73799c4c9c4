package mergelogreceiver

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
)

// OrderingConfig is file_log's ordering_criteria: of the files include matches, only the first
// top_n by sort_by (per group_by group) are read, chosen at every poll before anything is read.
type OrderingConfig struct {
	// Regex captures the sort keys from each path, as named groups; a path it does not match is
	// not read.
	Regex string `mapstructure:"regex"`
	// TopN is how many files of each group are read; 0 means all, and unset means 1 (file_log's
	// default without its filelog.requireExplicitTopN gate).
	TopN   *int         `mapstructure:"top_n"`
	SortBy []SortConfig `mapstructure:"sort_by"`
	// GroupBy makes each value of its first capture group a group of its own; a path it does
	// not match is not read.
	GroupBy string `mapstructure:"group_by"`
}

// SortConfig is one sort of ordering_criteria.sort_by.
type SortConfig struct {
	SortType  string `mapstructure:"sort_type"` // numeric, alphabetical, timestamp or mtime
	RegexKey  string `mapstructure:"regex_key"` // the group of regex holding the key
	Ascending bool   `mapstructure:"ascending"`
	Layout    string `mapstructure:"layout"`   // timestamp: a strptime layout
	Location  string `mapstructure:"location"` // timestamp: the IANA zone, UTC by default
}

var sortKinds = map[string]filetrack.SortKind{
	"numeric":      filetrack.SortNumeric,
	"alphabetical": filetrack.SortAlphabetical,
	"timestamp":    filetrack.SortTimestamp,
	"mtime":        filetrack.SortMtime,
}

// Validate checks the section as file_log does, and beyond it that each regex_key is a group of
// regex (file_log would read no file at all then).
func (o *OrderingConfig) Validate() error {
	_, err := o.compile()
	return err
}

// compile makes the tracker's selection; nil without sort_by, which leaves every file read, as
// in file_log. An error names its key.
func (o *OrderingConfig) compile() (*filetrack.Ordering, error) {
	var errs keyErrors
	var group *regexp.Regexp
	if o.GroupBy != "" {
		var err error
		group, err = regexp.Compile(o.GroupBy)
		errs.check("group_by", err)
		if err == nil && group.NumSubexp() < 1 {
			errs.add("group_by", "needs a capture group: its first one names the group")
		}
	}
	if len(o.SortBy) == 0 {
		return nil, errs.join()
	}
	ord := &filetrack.Ordering{GroupBy: group, TopN: 1}
	if o.TopN != nil {
		if *o.TopN < 0 {
			errs.add("top_n", "must not be negative (got %d; 0 reads every file)", *o.TopN)
		}
		ord.TopN = *o.TopN
	}
	if o.Regex != "" {
		var err error
		ord.Regex, err = regexp.Compile(o.Regex)
		errs.check("regex", err)
	}
	for i, s := range o.SortBy {
		sort, err := s.compile(ord.Regex, o.Regex != "")
		errs.check(fmt.Sprintf("sort_by[%d]", i), err)
		ord.SortBy = append(ord.SortBy, sort)
	}
	return ord, errs.join()
}

// compile makes one sort; re is the compiled regex (nil if it is not set, or bad: named already).
func (s *SortConfig) compile(re *regexp.Regexp, haveRegex bool) (filetrack.Sort, error) {
	kind, ok := sortKinds[s.SortType]
	if !ok {
		return filetrack.Sort{}, fmt.Errorf("sort_type: must be one of numeric, alphabetical, timestamp, mtime (got %q)", s.SortType)
	}
	sort := filetrack.Sort{Kind: kind, RegexKey: s.RegexKey, Ascending: s.Ascending}
	if kind == filetrack.SortMtime {
		return sort, nil
	}
	switch {
	case !haveRegex:
		return sort, errors.New("a sort by a key needs ordering_criteria.regex")
	case s.RegexKey == "":
		return sort, errors.New("regex_key: must be set")
	case re != nil && re.SubexpIndex(s.RegexKey) < 0:
		return sort, fmt.Errorf("regex_key: %q is not a named group of regex %q", s.RegexKey, re.String())
	}
	if kind != filetrack.SortTimestamp {
		return sort, nil
	}
	if s.Layout == "" {
		return sort, errors.New("layout: must be set for sort_type timestamp")
	}
	pc := timestamp.Config{Format: "layout", Layout: s.Layout, Location: time.UTC}
	if s.Location != "" {
		loc, err := time.LoadLocation(s.Location)
		if err != nil {
			return sort, fmt.Errorf("location: %w", err)
		}
		pc.Location = loc
	}
	parser, err := timestamp.New(pc)
	if err != nil {
		return sort, fmt.Errorf("layout: %w", err)
	}
	sort.Time = func(key string) (int64, bool) { return parser.Parse([]byte(key)) }
	return sort, nil
}
