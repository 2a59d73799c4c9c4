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
	{
		name:   "kubernetes containers",
		sender: k8sSender(datasenders.NewKubernetesContainerWriter),
		limits: tb.ResourceSpec{ExpectedMaxCPU: 110, ExpectedMaxRAM: 150},
	},
	{
		name:   "kubernetes containers parser",
		sender: k8sSender(datasenders.NewKubernetesContainerParserWriter),
		limits: tb.ResourceSpec{ExpectedMaxCPU: 110, ExpectedMaxRAM: 150},
	},
	{
		name:   "k8s CRI-Containerd",
		sender: k8sSender(datasenders.NewKubernetesCRIContainerdWriter),
		limits: tb.ResourceSpec{ExpectedMaxCPU: 100, ExpectedMaxRAM: 150},
	},
	{
		name:   "k8s CRI-Containerd no attr ops",
		sender: k8sSender(datasenders.NewKubernetesCRIContainerdNoAttributesOpsWriter),
		limits: tb.ResourceSpec{ExpectedMaxCPU: 100, ExpectedMaxRAM: 150},
	},
	{
		name:   "CRI-Containerd",
		sender: k8sSender(datasenders.NewCRIContainerdWriter),
		limits: tb.ResourceSpec{ExpectedMaxCPU: 100, ExpectedMaxRAM: 150},
	},
}

// k8sSender adapts a constructor of the testbed's container-log writers, which need no
// extension. They write under os.TempDir (TestMain points TMPDIR into the results).
func k8sSender(newWriter func() *datasenders.FileLogK8sWriter) func(*testing.T) (tb.LogDataSender, map[string]string) {
	return func(*testing.T) (tb.LogDataSender, map[string]string) {
		return newWriter(), nil
	}
}
