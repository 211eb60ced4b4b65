package cli

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// writeFailoverMap stores the map the routing operator keeps for a service whose east tier
// has lost capacity: worker-a (east) takes 70%, worker-b (west) the 30% east lacks.
func writeFailoverMap(ctx context.Context, isvc *omev1beta1.InferenceService) {
	probed := metav1.NewTime(time.Now().Add(-2 * time.Minute).Truncate(time.Second))
	probe := func(msg string) *omev1beta1.TrafficMapProbe {
		return &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbePassing, Message: msg, LastProbeTime: &probed}
	}
	tm := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: isvc.Name, Namespace: isvc.Namespace},
		Spec: omev1beta1.TrafficMapSpec{Service: isvc.Name, Mode: omev1beta1.PlacementModeAll, ObservedISVCGeneration: isvc.Generation,
			Failover: &omev1beta1.TrafficMapFailover{OverprovisioningPercent: 140, Summary: "east 70%, west 30%",
				Tiers: []omev1beta1.TrafficMapTier{{Name: "east", Health: 70, LoadPercent: 70}, {Name: "west", Health: 100, LoadPercent: 30}}},
			Entries: []omev1beta1.TrafficMapEntry{
				{Cluster: "worker-a", Endpoint: "https://chat.worker-a.example.com", Weight: 7, Healthy: true, Tier: "east",
					Capacity: omev1beta1.TrafficMapCapacity{Allocated: 2, Ready: 1, Source: omev1beta1.CapacitySourceControlPlane},
					Probe:    probe("HTTP 200"), WeightReason: omev1beta1.WeightRouted},
				{Cluster: "worker-b", Endpoint: "https://chat.worker-b.example.com", Weight: 3, Healthy: true, Tier: "west",
					Capacity: omev1beta1.TrafficMapCapacity{Allocated: 2, Ready: 2, Source: omev1beta1.CapacitySourceControlPlane},
					Probe:    probe("HTTP 200"), WeightReason: omev1beta1.WeightSpilled},
			}},
	}
	Expect(controllerutil.SetControllerReference(isvc, tm, k8s.Scheme())).To(Succeed())
	Expect(k8s.Create(ctx, tm)).To(Succeed())
	tm.Status.SourceUID = string(isvc.UID)
	tm.Status.ProbePeriod = &metav1.Duration{Duration: time.Minute}
	Expect(k8s.Status().Update(ctx, tm)).To(Succeed())
}

var _ = Describe("kubectl ome with failover tiers", func() {
	It("shows each route home's tier and the map's tier split", func(ctx context.Context) {
		ns := newNamespace(ctx)
		writeFailoverMap(ctx, newSource(ctx, ns, "chat", ""))

		for _, output := range []string{"table", "wide"} {
			r := run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", output)
			Expect(r.code).To(BeZero(), r.stderr)
			Expect(r.stdout).To(ContainSubstring("Settings accepted    Unknown: NotRecorded (Unverifiable)\n"+
				"Serving homes        NotRecorded\n"+
				"Failover             2 tier(s); overprovisioning 140%\n"+
				"Failover tier        east: load 70%; health 70 of 100\n"+
				"Failover tier        west: load 30%; health 100 of 100\n"+
				"Route home           worker-a\n"), output)
			Expect(r.stdout).To(ContainSubstring("Route home           worker-a\nEndpoint origin      https://chat.worker-a.example.com\n"+
				"Tier                 east\nFinal weight         7; healthy=true\n"+
				"Serving state        Unknown: the manager recorded no serving state for it\nWeight reason        Routed\n"), output)
			Expect(r.stdout).To(ContainSubstring("Route home           worker-b\nEndpoint origin      https://chat.worker-b.example.com\n"+
				"Tier                 west\nFinal weight         3; healthy=true\n"+
				"Serving state        Unknown: the manager recorded no serving state for it\nWeight reason        Spilled\n"), output)
		}

		r := run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var report struct {
			Content struct {
				Failover struct {
					OverprovisioningPercent int32  `json:"overprovisioningPercent"`
					Summary                 string `json:"summary"`
					Tiers                   []struct {
						Name        string `json:"name"`
						Health      int32  `json:"health"`
						LoadPercent int32  `json:"loadPercent"`
					} `json:"tiers"`
				} `json:"failover"`
				RouteHomes []struct {
					Cluster string `json:"cluster"`
					Tier    string `json:"tier"`
				} `json:"routeHomes"`
			} `json:"content"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &report)).To(Succeed())
		Expect(report.Content.Failover.OverprovisioningPercent).To(Equal(int32(140)))
		Expect(report.Content.Failover.Summary).To(Equal("east 70%, west 30%"))
		Expect(report.Content.Failover.Tiers).To(HaveLen(2))
		Expect(report.Content.Failover.Tiers[0].Health).To(Equal(int32(70)))
		Expect(report.Content.Failover.Tiers[1].LoadPercent).To(Equal(int32(30)))
		Expect(report.Content.RouteHomes).To(HaveLen(2))
		Expect(report.Content.RouteHomes[0].Tier).To(Equal("east"))
		Expect(report.Content.RouteHomes[1].Tier).To(Equal("west"))

		r = run(ctx, "traffic", "status", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Tier split           east 70%, west 30% (Reported)\nRoute home           worker-a\n" +
			"Tier                 east (Reported)\nWeight               7 (Reported); Routed\nShare                70% (Computed)\n"))
		Expect(r.stdout).To(ContainSubstring("Route home           worker-b\nTier                 west (Reported)\nWeight               3 (Reported); Spilled\n"))
	})

	It("prints no tier rows for a map without failover", func(ctx context.Context) {
		ns := newNamespace(ctx)
		writeMap(ctx, newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`))
		for _, args := range [][]string{{"placement", "endpoint"}, {"traffic", "status"}} {
			r := run(ctx, append(args, "chat", "-n", ns, "-o", "wide")...)
			Expect(r.code).To(BeZero(), r.stderr)
			Expect(r.stdout).NotTo(ContainSubstring("Tier"), args[0])
			Expect(r.stdout).NotTo(ContainSubstring("Failover"), args[0])
		}
	})
})
