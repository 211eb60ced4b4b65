package crdsize

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/placement"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// TestTheManagerCapsWhatItWritesAtTheCRDsMaxima: every text the manager writes into a map
// is cut to its field's maxLength, and every list to its maxItems, before the write. A
// constant that drifts from the CRD makes writes fail (a constant above the maximum) or
// cuts a message short for no reason (below it).
func TestTheManagerCapsWhatItWritesAtTheCRDsMaxima(t *testing.T) {
	root := readCRD(t, "ome.io_trafficmaps.yaml").Spec.Versions[0].Schema.OpenAPIV3Schema
	lengths := map[string]int{
		".spec.entries[].capacity.fallbackReason": capacity.MaxReasonBytes,
		".spec.entries[].probe.message":           probe.MaxMessageBytes,
		".spec.entries[].refused":                 trafficmap.MaxRefusedBytes,
		".spec.entries[].weightMessage":           trafficmap.MaxWeightMessageBytes,
		".spec.entries[].warning":                 trafficmap.MaxWarningBytes,
		".spec.entries[].drainRefs[]":             drain.MaxIDBytes,
		".spec.entries[].passiveGate.message":     passivegate.MaxMessageBytes,
		".status.excludedClusters[].message":      placement.MaxExclusionMessageBytes,
		".status.noTraffic":                       trafficmap.MaxNoTrafficBytes,
	}
	for path, want := range lengths {
		if s := at(t, root, path); s != nil && (s.MaxLength == nil || int(*s.MaxLength) != want) {
			t.Errorf("%s: maxLength %v in the CRD, the manager caps it at %d", path, deref(s.MaxLength), want)
		}
	}
	items := map[string]int{
		".spec.entries":             trafficmap.MaxEntries,
		".spec.entries[].drainRefs": drain.MaxOverrides,
		".status.excludedClusters":  trafficmap.MaxExcludedClusters,
	}
	for path, want := range items {
		if s := at(t, root, path); s != nil && (s.MaxItems == nil || int(*s.MaxItems) != want) {
			t.Errorf("%s: maxItems %v in the CRD, the manager caps it at %d", path, deref(s.MaxItems), want)
		}
	}
	maxima := map[string]float64{
		".spec.entries[].passiveGate.count": passivegate.MaxGatesInARow,
	}
	for path, want := range maxima {
		if s := at(t, root, path); s != nil && s.Maximum == nil {
			t.Errorf("%s: no maximum in the CRD, the manager caps it at %v", path, want)
		} else if s != nil && *s.Maximum != want {
			t.Errorf("%s: maximum %v in the CRD, the manager caps it at %v", path, *s.Maximum, want)
		}
	}
}

// at is the schema at a path such as .spec.entries[].refused.
func at(t *testing.T, root *apiextensionsv1.JSONSchemaProps, path string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	s := root
	for _, part := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		name, list := strings.CutSuffix(part, "[]")
		prop, ok := s.Properties[name]
		if !ok {
			t.Errorf("%s: no field %q in the CRD", path, name)
			return nil
		}
		s = &prop
		if list {
			s = s.Items.Schema
		}
	}
	return s
}

func deref(p *int64) any {
	if p == nil {
		return "unset"
	}
	return *p
}
