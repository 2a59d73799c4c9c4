package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// Every resource of kustomization.yaml decodes strictly into the type of its kind.
func TestManifestsDecodeStrictly(t *testing.T) {
	d := load(t) // fails on the first manifest that does not decode
	if got, want := len(d.namespaces)+len(d.serviceAccounts)+len(d.services)+len(d.daemonSets)+len(d.deployments)+
		len(d.priorityClasses)+len(d.budgets)+len(d.networkPolicies), len(d.Resources); got != want {
		t.Errorf("decoded %d objects from %d resources", got, want)
	}
}

// The strict decoder catches what a lenient one lets through: each testdata file is a copy of
// valid.yaml with one defect.
func TestStrictDecodingCatchesDefects(t *testing.T) {
	strict := strictDecoder()
	scheme := newScheme()
	lenient := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true})

	valid := readTestdata(t, "valid.yaml")
	if _, err := decodeManifest(strict, valid); err != nil {
		t.Fatalf("valid.yaml: %v", err)
	}
	for _, tc := range []struct {
		file string
		// strictOnly: only strict decoding reports it (a lenient decoder drops or overwrites
		// the field without a word).
		strictOnly bool
		// mention: what the error must name.
		mention string
	}{
		{"unknown-field.yaml", true, "imagePullPolcy"},
		{"duplicate-key.yaml", true, `"image" already set`},
		{"wrong-type.yaml", false, "replicas"},
		{"two-documents.yaml", false, "one YAML document"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := readTestdata(t, tc.file)
			_, err := decodeManifest(strict, data)
			if err == nil {
				t.Fatal("decoded without error")
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not mention %q", err, tc.mention)
			}
			if got := runtime.IsStrictDecodingError(err); got != tc.strictOnly {
				t.Errorf("IsStrictDecodingError = %v, want %v (%v)", got, tc.strictOnly, err)
			}
			if tc.strictOnly {
				if _, _, err := lenient.Decode(data, nil, nil); err != nil {
					t.Errorf("a lenient decoder rejects it too (%v): the test shows nothing about strictness", err)
				}
			}
		})
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
