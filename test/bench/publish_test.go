package bench

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	opconfig "github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
)

// publishFlips is how many times worker-b's weight is flipped between 1 (ungated) and 0
// (gated).
const publishFlips = 20

// TestPublishLatency prints one line:
//
//	publish flips=20 median_ms=… max_ms=… min_ms=…
//
// the time from a TrafficMap spec write (as the routing reconciler makes it when a home is
// gated or ungated) to the HTTPRoute watch event carrying the new weight, with the publisher
// alone in a manager against one envtest API server. It reports and never asserts a time.
func TestPublishLatency(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("publish latency benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS) to run it; `make bench` does")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := envfleet.StartCluster("control-plane")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	}()
	if err := cp.InstallGatewayCRDs(); err != nil {
		t.Fatal(err)
	}
	c := cp.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench-publish"}}
	must(t, c.Create(ctx, ns))
	key := client.ObjectKey{Namespace: ns.Name, Name: "chat"}
	isvc := envfleet.SourceService(key, []string{"worker-a", "worker-b"}, nil)
	must(t, c.Create(ctx, isvc))
	tm := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		Spec: omev1beta1.TrafficMapSpec{Service: key.Name, ObservedISVCGeneration: isvc.Generation, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "http://worker-a.example.test", Weight: 1, Healthy: true},
			{Cluster: "worker-b", Endpoint: "http://worker-b.example.test", Weight: 1, Healthy: true},
		}},
	}
	must(t, controllerutil.SetControllerReference(isvc, tm, envfleet.Scheme))
	must(t, c.Create(ctx, tm))

	// The observer is the publish guard's resolver and guard: the map's names are the
	// observer's, on loopback, which it may reach.
	observer := framework.ObserverSettings()
	observer.MaxConcurrentRequests, observer.MaxResponseBytes = 1, 1
	startBenchManager(t, &framework.Environment{Fleet: &envfleet.Fleet{ControlPlane: cp}},
		opconfig.Config{Routing: opconfig.Routing{Enabled: true, Observer: observer},
			Endpoint: opconfig.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: 80, GlobalHostTemplate: "{{ .Name }}.example.com"}},
		framework.PublisherOnly(),
		framework.WithHosts(map[string]netip.Addr{"worker-a.example.test": netip.MustParseAddr("127.0.0.1"), "worker-b.example.test": netip.MustParseAddr("127.0.0.1")}))

	// Watch the route from the start, so that no update can be missed between flips.
	wc, err := client.NewWithWatch(cp.Config, client.Options{Scheme: envfleet.Scheme})
	must(t, err)
	w, err := wc.Watch(ctx, &gatewayv1.HTTPRouteList{}, client.InNamespace(ns.Name))
	must(t, err)
	defer w.Stop()
	routeB := publish.BackendName(key.Namespace, key.Name, "worker-b")
	waitWeight := func(want int32) time.Time {
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case ev := <-w.ResultChan():
				r, ok := ev.Object.(*gatewayv1.HTTPRoute)
				if !ok || ev.Type == watch.Deleted || len(r.Spec.Rules) == 0 {
					continue
				}
				for _, ref := range r.Spec.Rules[0].BackendRefs {
					if string(ref.Name) == routeB && ref.Weight != nil && *ref.Weight == want {
						return time.Now()
					}
				}
			case <-deadline:
				t.Fatalf("the route never carried worker-b weight %d", want)
			}
		}
	}
	waitWeight(1)

	latencies := make([]time.Duration, 0, publishFlips)
	weight := int32(1)
	for range publishFlips {
		weight = 1 - weight
		must(t, c.Get(ctx, key, tm))
		// A merge patch, as the routing reconciler writes the spec: the publisher's status
		// writes in between do not make it a conflict.
		before := tm.DeepCopy()
		tm.Spec.Entries[1].Weight = weight
		tm.Spec.Entries[1].Healthy = weight == 1
		start := time.Now()
		must(t, c.Patch(ctx, tm, client.MergeFrom(before)))
		latencies = append(latencies, waitWeight(weight).Sub(start))
	}
	slices.Sort(latencies)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
	fmt.Printf("publish flips=%d median_ms=%s max_ms=%s min_ms=%s\n", publishFlips,
		ms((latencies[publishFlips/2-1]+latencies[publishFlips/2])/2), ms(latencies[publishFlips-1]), ms(latencies[0]))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
