package crdsize

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// etcdRequestLimit is etcd's default --max-request-bytes: the largest object one write
// can store.
const etcdRequestLimit = 3 * 512 * 1024

// Metadata is not in the CRD's schema, so it gets a budget of its own:
//   - annotations: the API server refuses more than 256 KiB of them in all;
//   - the rest of metadata (name, labels, owner reference, finalizers) and the managed
//     fields' per-manager header (manager name, operation, time): a generous fixed share;
//   - the managed fields' field set, which lists every key the object holds once and is
//     estimated from the schema walk below.
const (
	annotationsLimit   = 256 * 1024
	otherMetadataBytes = 16 * 1024
)

// dateTimeBytes bounds a date-time string whose schema has no maxLength (metav1.Condition's
// lastTransitionTime): RFC 3339 with nanoseconds and an offset is 35 characters; 64 leaves
// room for what the API server's date-time format also accepts.
const dateTimeBytes = 64

// numberBytes is the longest JSON integer an int64 field can hold.
const numberBytes = 20

// crossFieldBounds are CEL rules that bound a list across the whole object more tightly
// than its per-item schema can: the walk counts the list at maxItems in every parent, so a
// rule here replaces that with the object-wide total. Each rule must be in the CRD.
var crossFieldBounds = map[string]crossFieldBound{
	".spec.entries[].drainRefs": {
		rule:  "!has(self.entries) || self.entries.map(e, has(e.drainRefs) ? size(e.drainRefs) : 0).sum() <= 64",
		total: 64,
	},
}

type crossFieldBound struct {
	rule  string // the x-kubernetes-validations rule on the list's object parent
	total int    // the most items the list holds across the whole object
}

// size is the most bytes a value can take in JSON, and the most its keys add to the
// managed fields' field set.
type size struct{ value, fields int }

func (s size) plus(o size) size { return size{s.value + o.value, s.fields + o.fields} }

func (s size) times(n int) size { return size{s.value * n, s.fields * n} }

type walker struct {
	unbounded []string
	deferred  map[string]size // a cross-field list's single item, counted once per total
}

func (w *walker) walk(path string, s *apiextensionsv1.JSONSchemaProps) size {
	if s.XIntOrString {
		if s.MaxLength == nil {
			w.unbounded = append(w.unbounded, path+" (int-or-string without maxLength)")
			return size{}
		}
		return size{value: max(int(*s.MaxLength)+2, numberBytes)}
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		w.unbounded = append(w.unbounded, path+" (preserves unknown fields)")
		return size{}
	}
	switch s.Type {
	case "boolean":
		return size{value: len("false")}
	case "integer", "number":
		return size{value: numberBytes}
	case "string":
		return size{value: w.stringBytes(path, s) + 2}
	case "array":
		if s.Items == nil || s.Items.Schema == nil {
			w.unbounded = append(w.unbounded, path+" (array without an item schema)")
			return size{}
		}
		item := w.walk(path+"[]", s.Items.Schema)
		if _, ok := crossFieldBounds[path]; ok {
			w.deferred[path] = item
			return size{value: 2}
		}
		if s.MaxItems == nil {
			w.unbounded = append(w.unbounded, path+" (array without maxItems)")
			return size{}
		}
		// A list-map item is keyed in the field set by its key fields' values (quoted
		// inside a quoted key, so each quote is escaped: count them twice).
		item.fields += len(`"k:{}":{".":{}},`)
		for _, key := range s.XListMapKeys {
			keySchema := s.Items.Schema.Properties[key]
			item.fields += 2*w.walk(path+"[]."+key, &keySchema).value + len(key)
		}
		n := int(*s.MaxItems)
		return item.plus(size{value: 1}).times(n).plus(size{value: 2})
	case "object":
		if s.AdditionalProperties != nil {
			w.unbounded = append(w.unbounded, path+" (a map: no bound on its keys)")
			return size{}
		}
		total := size{value: 2}
		for name, prop := range s.Properties {
			p := w.walk(path+"."+name, &prop)
			key := len(name) + len(`"":,`)
			total = total.plus(p).plus(size{value: key, fields: key + len(`f:{}`)})
		}
		return total
	}
	w.unbounded = append(w.unbounded, fmt.Sprintf("%s (type %q)", path, s.Type))
	return size{}
}

func (w *walker) stringBytes(path string, s *apiextensionsv1.JSONSchemaProps) int {
	if len(s.Enum) > 0 {
		longest := 0
		for _, e := range s.Enum {
			longest = max(longest, len(strings.Trim(string(e.Raw), `"`)))
		}
		return longest
	}
	if s.MaxLength != nil {
		return int(*s.MaxLength)
	}
	if s.Format == "date-time" {
		return dateTimeBytes
	}
	w.unbounded = append(w.unbounded, path+" (string without maxLength or enum)")
	return 0
}

// TestTrafficMapAtItsMaximaFitsInEtcd fails when a TrafficMap whose every field is at its
// CRD maximum is larger than one etcd write, or when a field has no maximum.
func TestTrafficMapAtItsMaximaFitsInEtcd(t *testing.T) {
	crd := readCRD(t, "ome.io_trafficmaps.yaml")
	for _, version := range crd.Spec.Versions {
		root := version.Schema.OpenAPIV3Schema
		w := &walker{deferred: map[string]size{}}
		var total size
		for _, part := range []string{"spec", "status"} {
			prop := root.Properties[part]
			total = total.plus(w.walk("."+part, &prop))
		}
		for path, bound := range crossFieldBounds {
			if !hasRule(root, path, bound.rule) {
				t.Errorf("%s: the CRD has no rule %q, which the size bound counts on", path, bound.rule)
			}
			item, ok := w.deferred[path]
			if !ok {
				t.Errorf("%s: no such list in the schema", path)
			}
			total = total.plus(item.plus(size{value: 1}).times(bound.total))
		}
		slices.Sort(w.unbounded)
		for _, u := range w.unbounded {
			t.Errorf("%s %s has no maximum: a map could grow past what etcd stores", version.Name, u)
		}
		worst := total.value + total.fields + annotationsLimit + otherMetadataBytes
		t.Logf("%s: spec and status at most %d bytes, their field set %d, metadata %d: %d of etcd's %d",
			version.Name, total.value, total.fields, annotationsLimit+otherMetadataBytes, worst, etcdRequestLimit)
		if worst > etcdRequestLimit {
			t.Errorf("%s: a TrafficMap at its maxima takes %d bytes, over etcd's %d: lower a maxItems or maxLength",
				version.Name, worst, etcdRequestLimit)
		}
	}
}

// hasRule reports whether the object holding the list at path carries rule.
func hasRule(root *apiextensionsv1.JSONSchemaProps, path, rule string) bool {
	// The rule sits on the object whose field list holds the bounded list: for
	// .spec.entries[].drainRefs, on .spec.
	first := strings.Split(strings.TrimPrefix(path, "."), ".")[0]
	parent := root.Properties[first]
	for _, v := range parent.XValidations {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

func readCRD(t *testing.T, name string) apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "config", "crd", "bases", name))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	return crd
}
