package routing

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ome-routing/operator/pkg/version"
)

var _ = Describe("The release that wrote a map", func() {
	It("is named on the map, and a map written by another release is written again", func(ctx context.Context) {
		s := newProbedService(ctx, "release", nil, both(1))
		Eventually(func(g Gomega) map[string]string { return s.trafficMap(g).Annotations }, timeout, interval).
			Should(HaveKeyWithValue(version.Annotation, version.Stamp()))

		// As after an upgrade: the map says an older release wrote it.
		tm := s.trafficMap(Default)
		before := tm.DeepCopy()
		tm.Annotations[version.Annotation] = "v0.9.0"
		Expect(fleet.ControlPlane.Client.Patch(ctx, tm, client.MergeFrom(before))).To(Succeed())
		Eventually(func(g Gomega) map[string]string { return s.trafficMap(g).Annotations }, timeout, interval).
			Should(HaveKeyWithValue(version.Annotation, version.Stamp()))
	})
})
