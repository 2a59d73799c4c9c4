package mergelogreceiver

// FileLogTuning is file_log's keys that tune its own reader, accepted so that a file_log
// configuration starts as it is. None changes what this receiver reads; README.md says, key by
// key, why the user sees what file_log would give them.
type FileLogTuning struct {
	// InitialBufferSize is file_log's first scan buffer (16KiB); lines here are cut out of
	// reads of 256KiB, and the buffer grows with a long line up to max_log_size either way.
	InitialBufferSize ByteSize `mapstructure:"initial_buffer_size"`
	// MaxBatches caps how many groups of max_concurrent_files/2 files file_log reads in one
	// poll (0: all); here every file takes its turn within max_concurrent_files descriptors.
	MaxBatches int `mapstructure:"max_batches"`
	// AcquireFSLock makes file_log skip a file while its writer holds an exclusive flock on it;
	// lines here are taken only once their newline is written, so a lock adds nothing.
	AcquireFSLock bool `mapstructure:"acquire_fs_lock"`
	// PollsToArchive is how many polls file_log keeps the offsets of files no longer matched;
	// identities here are kept while a file of theirs exists, and for a while after.
	PollsToArchive int `mapstructure:"polls_to_archive"`
	// FileCacheAdvise makes file_log advise the kernel to drop a file's pages after reading it.
	FileCacheAdvise bool `mapstructure:"file_cache_advise"`
	// SkipUnmodifiedFiles makes file_log skip opening files whose modification time did not
	// change; here a file whose size and modification time did not change is never read again.
	SkipUnmodifiedFiles bool `mapstructure:"skip_unmodified_files"`
	// ID and Type name file_log's input operator inside its own stanza pipeline (file_input);
	// here there is no such operator to name.
	ID   string `mapstructure:"id"`
	Type string `mapstructure:"type"`
}

// validateTuning checks what file_log checks of these keys.
func (t *FileLogTuning) validateTuning(errs *keyErrors) {
	if t.MaxBatches < 0 {
		errs.add("max_batches", "must not be negative (got %d)", t.MaxBatches)
	}
	if t.PollsToArchive < 0 {
		errs.add("polls_to_archive", "must not be negative (got %d)", t.PollsToArchive)
	}
	if t.InitialBufferSize < 0 {
		errs.add("initial_buffer_size", "must not be negative (got %d)", t.InitialBufferSize)
	}
}

// OnTruncate is file_log's choice for a file that shrank below the offset read while its first
// bytes still match: ignore (file_log's default), read_whole_file or read_new. Here every value
// reads such a file again from its start (see README.md).
type OnTruncate string

const (
	OnTruncateIgnore        OnTruncate = "ignore"
	OnTruncateReadWholeFile OnTruncate = "read_whole_file"
	OnTruncateReadNew       OnTruncate = "read_new"
)

func (o *OnTruncate) UnmarshalText(text []byte) error { return unmarshalEnum(text, o) }
func (o OnTruncate) validate() error {
	return oneOf(o, OnTruncateIgnore, OnTruncateReadWholeFile, OnTruncateReadNew)
}
