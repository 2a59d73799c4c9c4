package testbed

import (
	"fmt"
	"regexp"

	tb "github.com/open-telemetry/opentelemetry-collector-contrib/testbed/testbed"
)

// The receiver keys a case runs under: the testbed's own (contrib's file_log by its old name,
// which the full build still takes) and ours.
const (
	fileLogKey  = "filelog"
	mergelogKey = "mergelog"
)

// receiverKeyLine matches the key the testbed's file senders put their receiver under, at the
// indentation their config has inside `receivers:`.
var receiverKeyLine = regexp.MustCompile(`(?m)^ {2}` + fileLogKey + `:[ \t]*$`)

// renamedSender is a testbed sender whose receiver config is the one it generates with the
// receiver's key replaced: the same options, another receiver.
type renamedSender struct {
	tb.LogDataSender
	key    string
	config string
}

// renameReceiver returns sender with its receiver config under key. The sender must generate
// its config once and for all when made, as the testbed's file senders do.
func renameReceiver(sender tb.LogDataSender, key string) (*renamedSender, error) {
	config := sender.GenConfigYAMLStr()
	if n := len(receiverKeyLine.FindAllStringIndex(config, -1)); n != 1 {
		return nil, fmt.Errorf("want one %q key in the sender's receiver config, found %d:\n%s", fileLogKey, n, config)
	}
	return &renamedSender{
		LogDataSender: sender,
		key:           key,
		config:        receiverKeyLine.ReplaceAllLiteralString(config, "  "+key+":"),
	}, nil
}

func (s *renamedSender) GenConfigYAMLStr() string { return s.config }

func (s *renamedSender) ProtocolName() string { return s.key }
