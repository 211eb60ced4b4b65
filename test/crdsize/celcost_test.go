package crdsize

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

// TestCRDsPassTheAPIServersValidation runs each generated CRD through the API server's own
// CRD validation, CEL cost estimates included, so that a rule too costly to install fails
// here in a second rather than as every suite's BeforeSuite.
func TestCRDsPassTheAPIServersValidation(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no CRDs found: %v", err)
	}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		v1 := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, v1); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// Status is the API server's to fill; the check wants the stored versions there.
		for _, v := range v1.Spec.Versions {
			if v.Storage {
				v1.Status.StoredVersions = append(v1.Status.StoredVersions, v.Name)
			}
		}
		internal := &apiextensions.CustomResourceDefinition{}
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if errs := validation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) > 0 {
			for _, e := range errs {
				t.Errorf("%s: %v", filepath.Base(path), e)
			}
		}
	}
}
