package api

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const compatNamespace = "api-compat"

// otherVersionStatus is a copy's status as a newer OME writes it: the fields routing reads,
// next to fields this schema does not have, at the top of status and inside the parts it
// does know.
const otherVersionStatus = `{
  "url": "http://llm.worker-a.example.com/qwen3-0-6b/qwen3-0-6b",
  "address": {"url": "http://qwen3-0-6b-engine.qwen3-0-6b.svc.cluster.local"},
  "modelStatus": {
    "transitionStatus": "UpToDate",
    "states": {"activeModelState": "Loaded", "targetModelState": "Loaded"}
  },
  "observedGeneration": 1,
  "conditions": [
    {"type": "Ready", "status": "True", "reason": "Ready", "message": "",
     "lastTransitionTime": "2026-01-02T03:04:05Z", "severity": "Info"},
    {"type": "IngressReady", "status": "True", "reason": "Routed", "message": "",
     "lastTransitionTime": "2026-01-02T03:04:05Z"}
  ],
  "components": {
    "engine": {"readyReplicas": 2, "desiredReplicas": 3, "latestCreatedRevision": "x",
               "url": "http://qwen3-0-6b-engine.qwen3-0-6b.svc.cluster.local"},
    "router": {"latestReadyRevision": "r1"}
  }
}`

var _ = Describe("A service copy written by another OME version", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, compatNamespace) })

	It("reads back with the typed client, known fields intact", func(ctx context.Context) {
		isvc := &omev1beta1.InferenceService{
			ObjectMeta: metav1.ObjectMeta{Namespace: compatNamespace, Name: "qwen3-0-6b"},
			Spec:       omev1beta1.InferenceServiceSpec{Model: &omev1beta1.ModelRef{Name: "qwen3-0-6b"}},
		}
		Expect(k8s.Create(ctx, isvc)).To(Succeed())

		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(omev1beta1.GroupVersion.WithKind("InferenceService"))
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), u)).To(Succeed())
		status := &unstructured.Unstructured{}
		Expect(status.UnmarshalJSON([]byte(`{"apiVersion": "v1", "kind": "Carrier", "status": ` + otherVersionStatus + `}`))).To(Succeed())
		u.Object["status"] = status.Object["status"]
		Expect(k8s.Status().Update(ctx, u)).To(Succeed())

		got := &omev1beta1.InferenceService{}
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), got)).To(Succeed())
		Expect(got.Status.URL).To(Equal("http://llm.worker-a.example.com/qwen3-0-6b/qwen3-0-6b"))
		Expect(got.Status.Components).NotTo(BeNil())
		Expect(got.Status.Components.Engine).To(Equal(&omev1beta1.ComponentStatus{DesiredReplicas: 3, ReadyReplicas: 2}))
		transition := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		Expect(got.Status.Conditions).To(HaveLen(2))
		Expect(got.Status.Conditions[0]).To(And(
			HaveField("Type", omev1beta1.InferenceServiceReady),
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", "Ready"),
			HaveField("LastTransitionTime.Time", BeTemporally("==", transition.Time)),
		))
		Expect(got.Status.Conditions[1]).To(And(
			HaveField("Type", omev1beta1.InferenceServiceIngressReady),
			HaveField("Status", metav1.ConditionTrue),
		))

		// The schema keeps what it does not know at the top of status, as its doc comment says.
		stored := &unstructured.Unstructured{}
		stored.SetGroupVersionKind(omev1beta1.GroupVersion.WithKind("InferenceService"))
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), stored)).To(Succeed())
		Expect(stored.Object["status"]).To(HaveKeyWithValue("modelStatus", HaveKeyWithValue("transitionStatus", "UpToDate")))
		Expect(stored.Object["status"]).To(HaveKeyWithValue("address", HaveKey("url")))
	})
})
