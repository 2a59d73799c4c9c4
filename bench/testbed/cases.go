package testbed

import (
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/testbed/datasenders"
	tb "github.com/open-telemetry/opentelemetry-collector-contrib/testbed/testbed"
)

// fileCase is one of TestLog10kDPS's file cases: the testbed's sender, which writes the lines
// and generates the receiver's config, the extensions the config needs, and the case's limits.
type fileCase struct {
	name   string
	sender func(t *testing.T) (tb.LogDataSender, map[string]string)
	limits tb.ResourceSpec
}

// fileCases are TestLog10kDPS's cases whose receiver reads files, with contrib's names and limits.
var fileCases = []fileCase{
	{
		name: "filelog",
		sender: func(t *testing.T) (tb.LogDataSender, map[string]string) {
			return datasenders.NewFileLogWriter(t), nil
		},
		limits: tb.ResourceSpec{ExpectedMaxCPU: 50, ExpectedMaxRAM: 120},
	},
	{
		name: "filelog checkpoints",
		sender: func(t *testing.T) (tb.LogDataSender, map[string]string) {
			return datasenders.NewFileLogWriter(t).WithStorage("\n    storage: file_storage\n"),
				datasenders.NewLocalFileStorageExtension(t)
		},
		limits: tb.ResourceSpec{ExpectedMaxCPU: 50, ExpectedMaxRAM: 120},
	},
	k8sCase("kubernetes containers", datasenders.NewKubernetesContainerWriter, 110),
	k8sCase("kubernetes containers parser", datasenders.NewKubernetesContainerParserWriter, 110),
	k8sCase("k8s CRI-Containerd", datasenders.NewKubernetesCRIContainerdWriter, 100),
	k8sCase("k8s CRI-Containerd no attr ops", datasenders.NewKubernetesCRIContainerdNoAttributesOpsWriter, 100),
	k8sCase("CRI-Containerd", datasenders.NewCRIContainerdWriter, 100),
}

// k8sCase is a case of the testbed's container-log writers, which need no extension, with
// contrib's CPU limit and 150 MiB of RAM. They write under os.TempDir (TestMain points TMPDIR
// into the results).
func k8sCase(name string, newWriter func() *datasenders.FileLogK8sWriter, maxCPU uint32) fileCase {
	return fileCase{
		name: name,
		sender: func(*testing.T) (tb.LogDataSender, map[string]string) {
			return newWriter(), nil
		},
		limits: tb.ResourceSpec{ExpectedMaxCPU: maxCPU, ExpectedMaxRAM: 150},
	}
}
