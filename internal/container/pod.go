package container

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Pod is what kubelet encodes in a container's log path:
// <root>/<namespace>_<pod>_<uid>/<container>/<restart count>.log, followed, once rotated, by
// ".<timestamp>" and possibly ".gz".
type Pod struct {
	Namespace, Name, UID, Container string
	Restart                         int
}

// PodFromPath reads the Kubernetes identity from a pod log path; false when the path is not
// laid out that way. Namespaces and pod names are DNS names, so they never hold '_'.
func PodFromPath(path string) (Pod, bool) {
	file := filepath.Base(path)
	dir := filepath.Dir(path)
	container := filepath.Base(dir)
	podDir := filepath.Base(filepath.Dir(dir))
	restart, rest, ok := strings.Cut(file, ".log")
	if !ok || (rest != "" && rest[0] != '.') {
		return Pod{}, false
	}
	n, err := strconv.Atoi(restart)
	if err != nil || n < 0 {
		return Pod{}, false
	}
	parts := strings.Split(podDir, "_")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" || container == "" || container == "." {
		return Pod{}, false
	}
	return Pod{Namespace: parts[0], Name: parts[1], UID: parts[2], Container: container, Restart: n}, true
}
