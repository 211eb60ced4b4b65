package routing

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

// probedService is a source InferenceService on the control plane and the endpoints its
// copies report on each worker, which the operator probes.
type probedService struct {
	key       client.ObjectKey
	endpoints map[string]*modelserver.Endpoint
}

// newProbedService creates a namespace and a source service placed on the named workers
// with the given routing settings, an endpoint per worker, and a ready copy on each worker
// with the given ready replicas.
func newProbedService(ctx context.Context, name string, routing *omev1beta1.Routing, ready map[string]int32) *probedService {
	return startProbedService(ctx, name, readyHomes(ready), routing)
}

// newProbedServiceIn is newProbedService with the namespace and name of key, in a
// namespace that exists already.
func newProbedServiceIn(ctx context.Context, key client.ObjectKey, ready map[string]int32) *probedService {
	return startProbedServiceAt(ctx, key, readyHomes(ready), nil)
}

// readyHomes are homes on the workers named, with their allocated and ready replicas.
func readyHomes(ready map[string]int32) map[string]framework.Home {
	homes := map[string]framework.Home{}
	for w, n := range ready {
		homes[w] = framework.Home{On: fleet.Workers[w].Client, Allocated: n, Ready: n}
	}
	return homes
}

// startProbedService creates a namespace and a source service on the homes given
// (framework.StartRoutedService), closing their endpoints when the spec ends.
func startProbedService(ctx context.Context, name string, homes map[string]framework.Home, routing *omev1beta1.Routing) *probedService {
	return startProbedServiceAt(ctx, client.ObjectKey{Name: name}, homes, routing)
}

// startProbedServiceAt is startProbedService at key; an empty key.Namespace gets a
// namespace of its own.
func startProbedServiceAt(ctx context.Context, key client.ObjectKey, homes map[string]framework.Home, routing *omev1beta1.Routing) *probedService {
	rs, err := framework.StartRoutedService(ctx, fleet.ControlPlane.Client, key, homes, routing, nil)
	Expect(err).NotTo(HaveOccurred())
	for _, ep := range rs.Endpoints {
		DeferCleanup(ep.Close)
	}
	return &probedService{key: rs.Key, endpoints: rs.Endpoints}
}

// placeCopy creates or updates the service's copy on a worker with its status, as the
// workload cluster's own controllers would report it.
func placeCopy(ctx context.Context, worker string, key client.ObjectKey, url string, allocated, ready int32) {
	Expect(envfleet.PlaceCopy(ctx, fleet.Workers[worker].Client, key, url, allocated, ready)).To(Succeed())
}

// trafficMap reads the service's TrafficMap.
func (s *probedService) trafficMap(g Gomega) *omev1beta1.TrafficMap {
	tm := &omev1beta1.TrafficMap{}
	g.Expect(fleet.ControlPlane.Client.Get(context.Background(), s.key, tm)).To(Succeed())
	return tm
}

// table is what the spec's Step 3 jsonpath command prints, one line per entry:
// cluster, weight, healthy, probe result and probe message.
func (s *probedService) table(g Gomega) []string {
	var lines []string
	for _, e := range s.trafficMap(g).Spec.Entries {
		result, message := "", ""
		if e.Probe != nil {
			result, message = string(e.Probe.Result), e.Probe.Message
		}
		lines = append(lines, fmt.Sprintf("%s %d %t %s %s", e.Cluster, e.Weight, e.Healthy, result, message))
	}
	return lines
}

// entry is the map's entry for a cluster.
func (s *probedService) entry(g Gomega, cluster string) omev1beta1.TrafficMapEntry {
	for _, e := range s.trafficMap(g).Spec.Entries {
		if e.Cluster == cluster {
			return e
		}
	}
	g.Expect(cluster).To(BeEmpty(), "the map has no entry for this cluster")
	return omev1beta1.TrafficMapEntry{}
}

// routable is the map's Routable condition.
func (s *probedService) routable(g Gomega) metav1.Condition {
	c := meta.FindStatusCondition(s.trafficMap(g).Status.Conditions, omev1beta1.TrafficMapRoutable)
	g.Expect(c).NotTo(BeNil())
	return *c
}

// counts are the map's status.homes and status.gatedHomes, -1 for one that is not set.
func (s *probedService) counts(g Gomega) [2]int32 {
	st := s.trafficMap(g).Status
	return [2]int32{ptr.Deref(st.Homes, -1), ptr.Deref(st.GatedHomes, -1)}
}

// update changes the source service.
func (s *probedService) update(ctx context.Context, mutate func(*omev1beta1.InferenceService)) {
	Eventually(func(g Gomega) {
		isvc := &omev1beta1.InferenceService{}
		g.Expect(fleet.ControlPlane.Client.Get(ctx, s.key, isvc)).To(Succeed())
		mutate(isvc)
		g.Expect(fleet.ControlPlane.Client.Update(ctx, isvc)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

// set switches how a worker's endpoint answers.
func (s *probedService) set(worker string, mode modelserver.Mode) {
	Expect(s.endpoints[worker].Set(mode)).To(Succeed())
}

// events are the messages of the service's events with the given reason (the same events
// on its TrafficMap are mapEvents).
func (s *probedService) events(g Gomega, reason string) []string {
	return s.eventsOn(g, "InferenceService", reason)
}

// eventsOn are the messages of the events with the given reason on the object of the
// given kind that has the service's name: the service or its TrafficMap.
func (s *probedService) eventsOn(g Gomega, kind, reason string) []string {
	list := &corev1.EventList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.InNamespace(s.key.Namespace))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == s.key.Name && e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}

func both(ready int32) map[string]int32 {
	return map[string]int32{"worker-a": ready, "worker-b": ready}
}

func withProbe(p *omev1beta1.RoutingProbe) *omev1beta1.Routing {
	return &omev1beta1.Routing{Probe: p}
}

// gbytesSay matches a log buffer that has said the literal text, at any point. The log is
// structured, so a double quote inside a logged value may appear escaped.
func gbytesSay(text string) OmegaMatcher {
	return gbytes.Say(strings.ReplaceAll(regexp.QuoteMeta(text), `"`, `\\?"`))
}

// newSourceServiceIn creates a routed source service, placed on both workers, in an existing
// namespace, with no copies.
func newSourceServiceIn(ctx context.Context, namespace, name string) client.ObjectKey {
	isvc := envfleet.SourceService(client.ObjectKey{Namespace: namespace, Name: name}, []string{"worker-a", "worker-b"}, nil)
	Expect(fleet.ControlPlane.Client.Create(ctx, isvc)).To(Succeed())
	return client.ObjectKeyFromObject(isvc)
}
