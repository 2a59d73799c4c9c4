package mergelogreceiver

import (
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/mergelog/otelcol-mergelog/internal/container"
)

// The resource attributes of a pod's container, as the k8sattributes processor names them.
const (
	attrK8sNamespace    = "k8s.namespace.name"
	attrK8sPodName      = "k8s.pod.name"
	attrK8sPodUID       = "k8s.pod.uid"
	attrK8sContainer    = "k8s.container.name"
	attrK8sRestartCount = "k8s.container.restart_count"
)

// resourceGroup is the resource of the records of some files: the static resource attributes
// and, with format container, the identity of the pod's container read from the path.
type resourceGroup struct {
	attrs pcommon.Map
	key   container.Pod
	files int // files using it; a pod's group is forgotten with its last file
}

// resources hands out one group per container, so that the records of a container's files
// (its log and the rotated ones) share one ResourceLogs in a batch.
type resources struct {
	static *resourceGroup
	pods   map[container.Pod]*resourceGroup
}

func newResources(static pcommon.Map) resources {
	return resources{static: &resourceGroup{attrs: static}, pods: map[container.Pod]*resourceGroup{}}
}

// of returns the group of a file at path and counts the file in it; restartText gives the
// restart count as a string, as file_log's container operator does.
func (rs *resources) of(path string, pods, restartText bool) *resourceGroup {
	if !pods {
		return rs.static
	}
	pod, ok := container.PodFromPath(path)
	if !ok {
		return rs.static
	}
	g := rs.pods[pod]
	if g == nil {
		m := pcommon.NewMap()
		rs.static.attrs.CopyTo(m)
		m.PutStr(attrK8sNamespace, pod.Namespace)
		m.PutStr(attrK8sPodName, pod.Name)
		m.PutStr(attrK8sPodUID, pod.UID)
		m.PutStr(attrK8sContainer, pod.Container)
		if restartText {
			m.PutStr(attrK8sRestartCount, strconv.Itoa(pod.Restart))
		} else {
			m.PutInt(attrK8sRestartCount, int64(pod.Restart))
		}
		g = &resourceGroup{attrs: m, key: pod}
		rs.pods[pod] = g
	}
	g.files++
	return g
}

// release uncounts a file from its group.
func (rs *resources) release(g *resourceGroup) {
	if g == nil || g == rs.static {
		return
	}
	g.files--
	if g.files == 0 {
		delete(rs.pods, g.key)
	}
}
