package routing

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

func cacheReading(use float64) loadbalance.Reading {
	return loadbalance.Reading{Known: true, CacheUse: ptr.To(use)}
}

// Load divides only what the gates and drains leave: a gated or drained home is no
// headroom for a saturated one, a refused home carries no load record, and a share that
// waits for minInterval sets the next reconcile.
func TestAttachLoadLeavesGatedAndDrainedHomesOut(t *testing.T) {
	policy := &loadbalance.Policy{Mode: omev1beta1.LoadBalancingEnforce, CacheUsePercent: 80, MinInterval: time.Minute,
		MaxStepPercent: 25, HysteresisPercent: 10, FloorPercent: 10}
	home := func(cluster string) trafficmap.Home {
		return trafficmap.Home{Cluster: cluster, Allocated: 1, Ready: 1}
	}
	gated, drained, refused := home("gated"), home("drained"), home("refused")
	gated.Probe = &omev1beta1.TrafficMapProbe{Gated: true}
	refused.Refused = "status.url refused"
	s := &routingScope{key: types.NamespacedName{Namespace: "prod", Name: "chat"}, load: policy,
		homes:     []trafficmap.Home{home("busy"), gated, drained, refused},
		overrides: []drain.Override{{ID: "m", Cluster: "drained"}},
		loadReadings: map[string]loadbalance.Reading{"busy": cacheReading(1), "gated": cacheReading(0),
			"drained": cacheReading(0), "refused": cacheReading(0)},
	}
	r := &Reconciler{}
	if next := r.attachLoad(s); !next.IsZero() {
		t.Fatalf("nothing waits, got a next look at %s", next)
	}
	if l := s.homes[0].Load; l == nil || l.SharePercent != 100 || l.Message != "saturated (cache 100% of 80%: 125%), no other cluster is below its target: holds at 100%" {
		t.Fatalf("busy: %+v", l)
	}
	if s.homes[3].Load != nil {
		t.Fatalf("a refused home carries a load record: %+v", s.homes[3].Load)
	}

	// With a home that has headroom, the busy one steps down; recorded a moment ago, it
	// waits for minInterval and says when to look again.
	s.homes = append(s.homes, home("idle"))
	s.loadReadings["idle"] = cacheReading(0.2)
	r.attachLoad(s)
	if l := s.homes[0].Load; l.SharePercent != 75 {
		t.Fatalf("busy with an idle peer: %+v", l)
	}
	changed := time.Now().Truncate(time.Second)
	s.current = &omev1beta1.TrafficMap{Spec: omev1beta1.TrafficMapSpec{Entries: []omev1beta1.TrafficMapEntry{
		{Cluster: "busy", Load: &omev1beta1.TrafficMapLoad{Mode: omev1beta1.LoadBalancingEnforce, Signal: omev1beta1.TrafficSignalKnown,
			SharePercent: 75, PressurePercent: ptr.To[int32](125), ChangePressurePercent: ptr.To[int32](125), LastChangeTime: &metav1.Time{Time: changed}}},
	}}}
	next := r.attachLoad(s)
	if want := changed.Add(time.Minute); !next.Equal(want) {
		t.Fatalf("next look at %s, want %s (the last change plus minInterval)", next, want)
	}
	if s.homes[0].Load.SharePercent != 75 {
		t.Fatalf("the share moved within minInterval: %+v", s.homes[0].Load)
	}
}
