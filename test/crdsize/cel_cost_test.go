package crdsize

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// TestTheAPIServerAcceptsEveryCRD runs the API server's own checks on each generated CRD,
// the CEL rules' estimated cost among them: a rule the estimator cannot bound (a list
// without maxItems, or a string it loses the maxLength of) makes the CRD fail to install,
// which otherwise shows only when an envtest suite starts.
func TestTheAPIServerAcceptsEveryCRD(t *testing.T) {
	scheme := k8sruntime.NewScheme()
	install.Install(scheme)
	_, file, _, _ := runtime.Caller(0)
	paths, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no CRDs under config/crd/bases: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path) //nolint:gosec // the repository's own CRDs
			if err != nil {
				t.Fatal(err)
			}
			var v1 apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(data, &v1); err != nil {
				t.Fatal(err)
			}
			scheme.Default(&v1)
			var crd apiextensions.CustomResourceDefinition
			if err := scheme.Convert(&v1, &crd, nil); err != nil {
				t.Fatal(err)
			}
			for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &crd) {
				t.Error(e)
			}
		})
	}
}
