package bounds

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	kjson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
)

// TestDrivenValuesPassTheSchemaValidator runs every driver without an API server and
// checks what it would write with the API server's own OpenAPI validator (the CEL rules
// are left to the envtest specs): a quick answer where envtest is not installed, and the
// field-present check on the objects as driven.
func TestDrivenValuesPassTheSchemaValidator(t *testing.T) {
	validators := map[string]validation.SchemaValidator{}
	for file, kind := range kindOf {
		v, err := schemaValidator(file)
		if err != nil {
			t.Fatal(err)
		}
		validators[kind] = v
	}
	for _, name := range driverNames() {
		t.Run(name, func(t *testing.T) {
			objects, err := drivers[name].drive(context.Background(), time.Now().UTC())
			if err != nil {
				t.Fatal(err)
			}
			var docs []map[string]any
			for _, obj := range objects {
				doc, err := document(obj)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range validation.ValidateCustomResource(nil, doc, validators[kindName(obj)]) {
					t.Errorf("%s %s: %v", kindName(obj), obj.GetName(), e)
				}
				docs = append(docs, doc)
			}
			for path, dn := range table {
				if dn == name && !slices.ContainsFunc(docs, func(doc map[string]any) bool { return present(doc, path) }) {
					t.Errorf("the case names %s but never sets it", path)
				}
			}
		})
	}
}

// document is obj as the API server decodes a request body: integers stay int64.
func document(obj client.Object) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := kjson.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	doc["kind"] = kindName(obj)
	return doc, nil
}

func schemaValidator(file string) (validation.SchemaValidator, error) {
	raw, err := os.ReadFile(filepath.Join(envfleet.CRDDir(), file))
	if err != nil {
		return nil, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	v, _, err := validation.NewSchemaValidator(&internal)
	return v, err
}
