package api

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// isvcWithRouting is an InferenceService whose spec.routing.<field> (probe or capacity) is
// exactly the given JSON. It is unstructured so that a field the JSON leaves out is not sent
// at all.
func isvcWithRouting(namespace, field, value string) *unstructured.Unstructured {
	GinkgoHelper()
	raw, err := json.Marshal(map[string]any{
		"apiVersion": omev1beta1.GroupVersion.String(),
		"kind":       "InferenceService",
		"metadata":   map[string]any{"generateName": strings.ToLower(field) + "-", "namespace": namespace},
		"spec":       map[string]any{"routing": map[string]any{field: json.RawMessage(value)}},
	})
	Expect(err).NotTo(HaveOccurred(), "%s JSON %s", field, value)
	u := &unstructured.Unstructured{}
	Expect(u.UnmarshalJSON(raw)).To(Succeed())
	return u
}

// expectRoutingVerdict checks a write of spec.routing.<field> against a case: accepted with
// the value stored as sent (celMessage empty), or refused as invalid with celMessage.
func expectRoutingVerdict(err error, field, celMessage, sent string, stored *unstructured.Unstructured) {
	GinkgoHelper()
	if celMessage == "" {
		Expect(err).NotTo(HaveOccurred())
		got, found, nestedErr := unstructured.NestedFieldNoCopy(stored.Object, "spec", "routing", field)
		Expect(nestedErr).NotTo(HaveOccurred())
		Expect(found).To(BeTrue(), "spec.routing.%s was not stored", field)
		raw, jsonErr := json.Marshal(got)
		Expect(jsonErr).NotTo(HaveOccurred())
		Expect(raw).To(MatchJSON(sent), "the stored %s differs from the one sent", field)
		return
	}
	Expect(err).To(HaveOccurred(), "the API server accepted a %s it must refuse", field)
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got: %v", err)
	Expect(err.Error()).To(ContainSubstring(celMessage))
}
