package api

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
)

// A drain holds one cluster, so a map holds at most drain.MaxOverrides drainRefs in all;
// the CRD's rule says so, which is what keeps a map at its maxima within one etcd write
// (test/crdsize counts on it).
var _ = Describe("TrafficMap drainRefs across entries", func() {
	BeforeEach(func(ctx context.Context) { ensureNamespace(ctx, admissionNamespace) })

	// mapWithDrains spreads n drainRefs over two entries.
	mapWithDrains := func(n int) *omev1beta1.TrafficMap {
		tm := trafficMapWith(omev1beta1.TrafficMapEntry{Cluster: "worker-a"})
		tm.Spec.Entries = append(tm.Spec.Entries, omev1beta1.TrafficMapEntry{Cluster: "worker-b"})
		for i := range n {
			e := &tm.Spec.Entries[i%2]
			e.DrainRefs = append(e.DrainRefs, fmt.Sprintf("drain-%03d", i))
		}
		return tm
	}

	It("accepts a map with no entries at all", func(ctx context.Context) {
		tm := trafficMapWith(omev1beta1.TrafficMapEntry{})
		tm.Spec.Entries = nil
		Expect(k8s.Create(ctx, tm)).To(Succeed())
	})

	It("accepts as many as an annotation may hold", func(ctx context.Context) {
		Expect(k8s.Create(ctx, mapWithDrains(drain.MaxOverrides))).To(Succeed())
	})

	It("refuses one more, with the rule's message", func(ctx context.Context) {
		expectInvalid(k8s.Create(ctx, mapWithDrains(drain.MaxOverrides+1)), "the entries hold at most 64 drainRefs in all")
	})
})
