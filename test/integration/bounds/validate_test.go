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
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	kjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
)

// TestDrivenValuesPassTheSchemaValidator runs every driver without an API server and
// checks what it would write with the API server's own validators, the OpenAPI schema's
// and the CEL rules': a quick answer where envtest is not installed, and the field-present
// check on the objects as driven.
func TestDrivenValuesPassTheSchemaValidator(t *testing.T) {
	validators := map[string]schemaValidators{}
	for file, kind := range kindOf {
		v, err := newSchemaValidators(file)
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
				for _, e := range validators[kindName(obj)].validate(doc) {
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

// schemaValidators are what the API server checks a custom resource with: its OpenAPI
// schema and its CEL rules.
type schemaValidators struct {
	openAPI validation.SchemaValidator
	cel     *cel.Validator
}

func (v schemaValidators) validate(doc map[string]any) field.ErrorList {
	errs := validation.ValidateCustomResource(nil, doc, v.openAPI)
	celErrs, _ := v.cel.Validate(context.Background(), nil, nil, doc, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

func newSchemaValidators(file string) (schemaValidators, error) {
	raw, err := os.ReadFile(filepath.Join(envfleet.CRDDir(), file))
	if err != nil {
		return schemaValidators{}, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return schemaValidators{}, fmt.Errorf("%s: %w", file, err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return schemaValidators{}, fmt.Errorf("%s: %w", file, err)
	}
	openAPI, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		return schemaValidators{}, fmt.Errorf("%s: %w", file, err)
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return schemaValidators{}, fmt.Errorf("%s: %w", file, err)
	}
	return schemaValidators{openAPI: openAPI, cel: cel.NewValidator(structural, true, celconfig.PerCallLimit)}, nil
}
