package samples

import (
	"strings"
	"testing"
)

func TestGuideInferenceService(t *testing.T) {
	doc := GuideInferenceService()
	if !strings.HasPrefix(doc, "apiVersion: ome.io/v1beta1\nkind: InferenceService\n") || strings.Contains(doc, "kind: Namespace") {
		t.Fatalf("not the InferenceService document alone:\n%s", doc)
	}
	if !strings.HasSuffix(doc, "      allFailedPolicy: Drain\n") {
		t.Errorf("the guide's probe ends with allFailedPolicy: Drain, got:\n%s", doc)
	}
}

func TestGuideInferenceServiceWith(t *testing.T) {
	doc, err := GuideInferenceServiceWith(ProbeField{"period", "2s"}, ProbeField{"allFailedPolicy", "PreserveTraffic"}, ProbeField{"rampUp", "8s"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("period: 30s\n", "period: 2s\n", "allFailedPolicy: Drain\n", "allFailedPolicy: PreserveTraffic\n      rampUp: 8s\n").
		Replace(GuideInferenceService())
	if doc != want {
		t.Errorf("got:\n%s\nwant:\n%s", doc, want)
	}
	twice := GuideInferenceService() + "      period: 9s\n"
	if _, err := withProbeFields(twice, []ProbeField{{"period", "2s"}}); err == nil || !strings.Contains(err.Error(), `"period" appears 2 times`) {
		t.Errorf("a field the document sets more than once: err %v, want it refused", err)
	}
}
