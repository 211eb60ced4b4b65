package bounds

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
)

// bound is what the generated schema allows a field: every keyword the API server checks
// a value against, as the CRD gives it.
type bound struct {
	Minimum, Maximum     *float64
	MinLength, MaxLength *int64
	MinItems, MaxItems   *int64
	Enum                 []string
	Pattern              string
}

func (b bound) String() string {
	var parts []string
	add := func(name string, v any) { parts = append(parts, fmt.Sprintf("%s %v", name, v)) }
	if b.Minimum != nil {
		add("minimum", *b.Minimum)
	}
	if b.Maximum != nil {
		add("maximum", *b.Maximum)
	}
	if b.MinLength != nil {
		add("minLength", *b.MinLength)
	}
	if b.MaxLength != nil {
		add("maxLength", *b.MaxLength)
	}
	if b.MinItems != nil {
		add("minItems", *b.MinItems)
	}
	if b.MaxItems != nil {
		add("maxItems", *b.MaxItems)
	}
	if len(b.Enum) > 0 {
		add("enum", b.Enum)
	}
	if b.Pattern != "" {
		add("pattern", b.Pattern)
	}
	return strings.Join(parts, ", ")
}

func (b bound) bounded() bool {
	return b.Minimum != nil || b.Maximum != nil || b.MinLength != nil || b.MaxLength != nil ||
		b.MinItems != nil || b.MaxItems != nil || len(b.Enum) > 0 || b.Pattern != ""
}

// written are the parts of each CRD the manager writes: a TrafficMap's spec and status
// (routing and the publisher), a WorkloadCluster's status (its Ready condition) and a
// source InferenceService's status.placement. Everything else is written by people.
var written = map[string][]string{
	"ome.io_trafficmaps.yaml":       {".spec", ".status"},
	"ome.io_workloadclusters.yaml":  {".status"},
	"ome.io_inferenceservices.yaml": {".status.placement"},
}

// kindOf names a CRD file's kind in the table's paths: "TrafficMap.spec.entries[].weight".
var kindOf = map[string]string{
	"ome.io_trafficmaps.yaml":       "TrafficMap",
	"ome.io_workloadclusters.yaml":  "WorkloadCluster",
	"ome.io_inferenceservices.yaml": "InferenceService",
}

// schemaBounds reads the generated CRDs and returns every bounded field under the parts the
// manager writes, by path, such as "TrafficMap.spec.entries[].passiveGate.requests".
func schemaBounds() (map[string]bound, error) {
	out := map[string]bound{}
	for file, roots := range written {
		raw, err := os.ReadFile(filepath.Join(envfleet.CRDDir(), file))
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(crd.Spec.Versions) != 1 {
			return nil, fmt.Errorf("%s: %d versions; the walk reads one", file, len(crd.Spec.Versions))
		}
		all := map[string]bound{}
		walkSchema("", crd.Spec.Versions[0].Schema.OpenAPIV3Schema, all)
		for path, b := range all {
			if slices.ContainsFunc(roots, func(r string) bool {
				return path == r || strings.HasPrefix(path, r+".") || strings.HasPrefix(path, r+"[]")
			}) {
				out[kindOf[file]+path] = b
			}
		}
	}
	return out, nil
}

// walkSchema records every bounded field at or under path.
func walkSchema(path string, s *apiextensionsv1.JSONSchemaProps, out map[string]bound) {
	b := bound{Minimum: s.Minimum, Maximum: s.Maximum, MinLength: s.MinLength, MaxLength: s.MaxLength,
		MinItems: s.MinItems, MaxItems: s.MaxItems, Pattern: s.Pattern}
	for _, e := range s.Enum {
		b.Enum = append(b.Enum, strings.Trim(string(e.Raw), `"`))
	}
	if b.bounded() && path != "" {
		out[path] = b
	}
	for name, p := range s.Properties {
		walkSchema(path+"."+name, &p, out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walkSchema(path+"[]", s.Items.Schema, out)
	}
}
