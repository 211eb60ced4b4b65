package v1beta1

import (
	"encoding/json"
	"testing"
)

// A list with factors that resource.Quantity refuses (1e1.5) or does not return on
// (1e999999999999) decodes, as the manager's caches decode it: each factor keeps its text,
// and the reconciler refuses only the service that carries it.
func TestCapacityFactorDecodesWhateverIsStored(t *testing.T) {
	const list = `{"items": [
	  {"metadata": {"name": "hostile"}, "spec": {"routing": {"capacityFactors":
	    {"a": "1e1.5", "b": "1e999999999999", "c": 2, "d": -1.5, "e": null, "f": {"x": 1}, "g": "1.5"}}}},
	  {"metadata": {"name": "healthy"}, "spec": {"routing": {"capacityFactors": {"a": "500m"}}}}]}`
	var got InferenceServiceList
	if err := json.Unmarshal([]byte(list), &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := map[string]CapacityFactor{"a": "1e1.5", "b": "1e999999999999", "c": "2", "d": "-1.5", "e": "null", "f": `{"x": 1}`, "g": "1.5"}
	factors := got.Items[0].Spec.Routing.CapacityFactors
	if len(factors) != len(want) {
		t.Fatalf("got %q, want %q", factors, want)
	}
	for k, v := range want {
		if factors[k] != v {
			t.Errorf("%s: got %q, want %q", k, factors[k], v)
		}
	}
	if f := got.Items[1].Spec.Routing.CapacityFactors["a"]; f != "500m" {
		t.Errorf("healthy: got %q", f)
	}
	// It is written back as a string, which the schema's int-or-string takes.
	out, err := json.Marshal(got.Items[0].Spec.Routing.CapacityFactors["c"])
	if err != nil || string(out) != `"2"` {
		t.Errorf("marshal: %s, %v", out, err)
	}
}
