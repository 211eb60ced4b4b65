package api

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const admissionNamespace = "api-admission"

// validDigest is a well-formed probe policy digest.
var validDigest = "sha256:" + strings.Repeat("0123456789abcdef", 4)

func trafficMapWith(entry omev1beta1.TrafficMapEntry) *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: admissionNamespace, GenerateName: "tm-"},
		Spec: omev1beta1.TrafficMapSpec{
			Service: "svc", Mode: omev1beta1.PlacementModeAll, Entries: []omev1beta1.TrafficMapEntry{entry},
		},
	}
}

func expectInvalid(err error, substrings ...string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), "the API server accepted an invalid object")
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got: %v", err)
	for _, s := range substrings {
		Expect(err.Error()).To(ContainSubstring(s))
	}
}

var _ = Describe("TrafficMap admission", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, admissionNamespace) })

	DescribeTable("entry weight",
		func(ctx context.Context, weight int32, valid bool) {
			err := k8s.Create(ctx, trafficMapWith(omev1beta1.TrafficMapEntry{Cluster: "worker-a", Weight: weight}))
			if valid {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			expectInvalid(err, "spec.entries[0].weight")
		},
		Entry("-1 is refused", int32(-1), false),
		Entry("0 is accepted", int32(0), true),
		Entry("the maximum is accepted", int32(omev1beta1.MaxWeight), true),
		Entry("one over the maximum is refused", int32(omev1beta1.MaxWeight+1), false),
	)

	DescribeTable("probe policyDigest",
		func(ctx context.Context, digest string, valid bool) {
			err := k8s.Create(ctx, trafficMapWith(omev1beta1.TrafficMapEntry{
				Cluster: "worker-a", Weight: 1, Healthy: true,
				Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbePassing},
			}))
			if valid {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			expectInvalid(err, "spec.entries[0].probe.policyDigest")
		},
		Entry("a sha256 of 64 lower-case hex digits is accepted", validDigest, true),
		Entry("upper-case hex is refused", "sha256:"+strings.ToUpper(validDigest[len("sha256:"):]), false),
		Entry("63 digits are refused", validDigest[:len(validDigest)-1], false),
		Entry("65 digits are refused", validDigest+"0", false),
		Entry("another algorithm is refused", "sha512:"+validDigest[len("sha256:"):], false),
		Entry("a bare hex string is refused", validDigest[len("sha256:"):], false),
		Entry("empty is refused", "", false),
	)
})

var _ = Describe("WorkloadCluster admission", func() {
	// unstructured, so that the missing secretRef is not sent as an empty object.
	workloadCluster := func(kubeConfig map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"spec": map[string]any{"clusterSource": map[string]any{"kubeConfig": kubeConfig}},
		}}
		u.SetGroupVersionKind(omev1beta1.GroupVersion.WithKind("WorkloadCluster"))
		u.SetGenerateName("wlc-")
		return u
	}

	DescribeTable("clusterSource: exactly one of kubeConfig or clusterProfileRef",
		func(ctx context.Context, source map[string]any, wantMessage string) {
			u := workloadCluster(nil)
			Expect(unstructured.SetNestedMap(u.Object, source, "spec", "clusterSource")).To(Succeed())
			err := k8s.Create(ctx, u)
			if wantMessage == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			expectInvalid(err, "spec.clusterSource", wantMessage)
		},
		Entry("a ClusterProfile alone is accepted", map[string]any{"clusterProfileRef": map[string]any{"name": "worker-a"}}, ""),
		Entry("neither is refused", map[string]any{}, "exactly one of kubeConfig or clusterProfileRef must be set."),
		Entry("both are refused", map[string]any{
			"clusterProfileRef": map[string]any{"name": "worker-a"},
			"kubeConfig":        map[string]any{"secretRef": map[string]any{"name": "worker-a-kubeconfig", "namespace": "ome"}},
		}, "exactly one of kubeConfig or clusterProfileRef must be set."),
		Entry("a profile without a name is refused", map[string]any{"clusterProfileRef": map[string]any{}}, "spec.clusterSource.clusterProfileRef.name"),
	)

	It("refuses a kubeconfig source without a secretRef", func(ctx context.Context) {
		err := k8s.Create(ctx, workloadCluster(map[string]any{"key": "kubeconfig"}))
		expectInvalid(err, "spec.clusterSource.kubeConfig.secretRef", "Required value")
	})

	It("defaults the Secret key to kubeconfig", func(ctx context.Context) {
		u := workloadCluster(map[string]any{
			"secretRef": map[string]any{"name": "worker-a-kubeconfig", "namespace": "ome"},
		})
		Expect(k8s.Create(ctx, u)).To(Succeed())

		wc := &omev1beta1.WorkloadCluster{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: u.GetName()}, wc)).To(Succeed())
		Expect(wc.Spec.ClusterSource.KubeConfig.Key).To(Equal(omev1beta1.DefaultKubeConfigKey))
		Expect(wc.Spec.ClusterSource.KubeConfig.SecretRef).To(Equal(
			omev1beta1.SecretReference{Name: "worker-a-kubeconfig", Namespace: "ome"}))
	})

	It("keeps a Secret key that is set", func(ctx context.Context) {
		u := workloadCluster(map[string]any{
			"secretRef": map[string]any{"name": "worker-b-kubeconfig", "namespace": "ome"},
			"key":       "value",
		})
		Expect(k8s.Create(ctx, u)).To(Succeed())

		wc := &omev1beta1.WorkloadCluster{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: u.GetName()}, wc)).To(Succeed())
		Expect(wc.Spec.ClusterSource.KubeConfig.Key).To(Equal("value"))
	})
})
