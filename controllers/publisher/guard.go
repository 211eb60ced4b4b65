package publisher

import (
	"context"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/related"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/publish"
)

// EventBackendRefused (Warning, on the TrafficMap): an entry's host is left out of the
// route because the publish guard refuses it (see publish.DecideHost); sent when the
// reason changes.
const EventBackendRefused = "BackendRefused"

// publishLookupTimeout bounds each lookup of a backend host: the publisher has few workers,
// and a resolver that hangs must not stop every publication.
const publishLookupTimeout = 2 * time.Second

// maxGuardedHosts bounds the hosts whose decisions the guard remembers; past it, those
// not looked at for a while are forgotten (member statuses can name any number of hosts).
const maxGuardedHosts = 4096

// publishGuard decides which entries of a map go into its route: those whose host every
// address passes the route guard, resolved at publish time and again once a decision is
// older than the resync interval, since a name can be re-pointed. A failed lookup keeps
// the last decision. A host no lookup has answered since the manager started stays in a
// map's route if that cluster's own backend names it (the one at the plan's name and
// namespace, labelled for the cluster and applied by the publisher's field manager): the
// publication that wrote it accepted the host, and a resolver outage at start-up must not
// withdraw a healthy cluster. An object anyone else wrote is no such evidence.
// What the global gateway resolves later, with its own resolver, only the gateway can
// guard; see docs/concepts/security.md.
type publishGuard struct {
	guard  observer.Guard
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// recheck is how old a decision may get before the host is resolved again.
	recheck time.Duration
	now     func() time.Time

	mu    sync.Mutex
	hosts map[string]*guardedHost
	// announced is the cluster left out last announced per map and cluster, so an event
	// is sent when its cause changes, not every round; it is also what the map's
	// status.leftOutOfRoute says. kept is likewise the unresolved host last logged as kept
	// per map and cluster.
	announced map[types.NamespacedName]map[string]omev1beta1.LeftOutCluster
	kept      map[types.NamespacedName]map[string]string
}

type guardedHost struct {
	decision publish.HostDecision
	// nextCheck is when the host is resolved again: one recheck after a lookup that
	// answered, publishLookupRetry after one that failed.
	nextCheck time.Time
	usedAt    time.Time
}

// publishLookupRetry is how soon a host whose lookup failed is tried again (at its next
// publication after that): soon enough for a new host to be published shortly after its
// name resolves, seldom enough that a resolver outage does not cost every publication a
// lookup timeout.
const publishLookupRetry = 10 * time.Second

// newPublishGuard judges hosts with guard, resolving them with lookup: the observer's
// guard and resolver, so that a route refuses what a probe refuses, under the same settings
// and the same names (the observer's Hosts included, which tests and demos use).
func newPublishGuard(guard observer.Guard, lookup func(ctx context.Context, host string) ([]netip.Addr, error), recheck time.Duration) *publishGuard {
	return &publishGuard{guard: guard, lookup: lookup, recheck: recheck, now: time.Now,
		hosts: map[string]*guardedHost{}, announced: map[types.NamespacedName]map[string]omev1beta1.LeftOutCluster{},
		kept: map[types.NamespacedName]map[string]string{}}
}

// publishedHostsFunc reads the host that each of clusters' own published backend names
// now, by cluster; a cluster without one is left out.
type publishedHostsFunc func(ctx context.Context, clusters []string) (map[string]string, error)

// admit returns the map with only the entries that may be published, and announces each
// refusal on the map. An entry the routing reconciler refused (its refused field) is left
// out too: it has weight 0, and its backend would still name the host. The map itself is
// not changed. published reads the hosts the map's own backends name now; it is asked
// only when a host no lookup has answered yet would be left out.
func (g *publishGuard) admit(ctx context.Context, tm *omev1beta1.TrafficMap, published publishedHostsFunc, rec events.EventRecorder) *omev1beta1.TrafficMap {
	hosts := make([]string, len(tm.Spec.Entries))
	invalid := make([]error, len(tm.Spec.Entries))
	for i, e := range tm.Spec.Entries {
		host, err := publish.BackendHost(e.Endpoint)
		switch {
		case err == nil:
			hosts[i] = host
		case host != "" && observer.CheckHostForm(host) != nil:
			// Refused by its form below, in the words the guard uses for every host.
			hosts[i] = host
		default:
			invalid[i] = err
		}
	}
	decisions := g.decide(ctx, hosts)
	out := tm.DeepCopy()
	out.Spec.Entries = out.Spec.Entries[:0]
	refusals, kept := map[string]omev1beta1.LeftOutCluster{}, map[string]string{}
	var publishedHosts map[string]string
	for i, e := range tm.Spec.Entries {
		switch {
		case e.Refused != "":
			// Announced by the routing reconciler on the service.
			continue
		case invalid[i] != nil:
			// The plan would refuse the whole map for it: only this entry is left out.
			refusals[e.Cluster] = omev1beta1.LeftOutCluster{Cluster: e.Cluster, Reason: omev1beta1.LeftOutInvalidEndpoint, Message: invalid[i].Error()}
			continue
		case !decisions[i].Allowed:
			if !decisions[i].Resolved {
				if publishedHosts == nil {
					publishedHosts = g.publishedHosts(ctx, tm, published)
				}
				if publishedHosts[e.Cluster] == hosts[i] {
					kept[e.Cluster] = hosts[i]
					break // out of the switch: the entry goes into the route
				}
			}
			reason := omev1beta1.LeftOutHostRefused
			if !decisions[i].Resolved {
				reason = omev1beta1.LeftOutHostUnresolved
			}
			refusals[e.Cluster] = omev1beta1.LeftOutCluster{Cluster: e.Cluster, Reason: reason, Message: decisions[i].Reason}
			continue
		}
		out.Spec.Entries = append(out.Spec.Entries, e)
	}
	g.announce(ctx, tm, refusals, kept, rec)
	return out
}

// publishedHosts are the hosts the map's own published backends name, by cluster, none
// when they cannot be read (which is logged).
func (g *publishGuard) publishedHosts(ctx context.Context, tm *omev1beta1.TrafficMap, published publishedHostsFunc) map[string]string {
	if published == nil {
		return map[string]string{}
	}
	clusters := make([]string, len(tm.Spec.Entries))
	for i, e := range tm.Spec.Entries {
		clusters[i] = e.Cluster
	}
	hosts, err := published(ctx, clusters)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Cannot read the published backends to keep their hosts through a failed lookup", "trafficMap", klog.KObj(tm))
		return map[string]string{}
	}
	if hosts == nil {
		hosts = map[string]string{}
	}
	return hosts
}

// decide looks up the hosts whose decision is missing or due, all at once, and returns
// each host's decision.
func (g *publishGuard) decide(ctx context.Context, hosts []string) []publish.HostDecision {
	now := g.now()
	due := map[string]*publish.HostDecision{}
	g.mu.Lock()
	for _, h := range hosts {
		if h == "" {
			continue
		}
		if cur := g.hosts[h]; cur == nil {
			due[h] = nil
		} else if !now.Before(cur.nextCheck) {
			d := cur.decision
			due[h] = &d
		}
	}
	g.mu.Unlock()

	type answer struct {
		host   string
		lookup publish.Lookup
		// byForm: the host is refused by its form, so it is not looked up at all.
		byForm bool
	}
	answers := make(chan answer, len(due))
	for h := range due {
		if observer.CheckHostForm(h) != nil {
			answers <- answer{host: h, byForm: true}
			continue
		}
		go func() {
			lctx, cancel := context.WithTimeout(ctx, publishLookupTimeout)
			defer cancel()
			a, err := g.lookup(lctx, h)
			answers <- answer{host: h, lookup: publish.Lookup{Addrs: a, Err: err}}
		}()
	}
	fresh := make([]answer, 0, len(due))
	for range due {
		fresh = append(fresh, <-answers)
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range fresh {
		cur := g.hosts[a.host]
		if cur == nil {
			cur = &guardedHost{}
			g.hosts[a.host] = cur
		}
		cur.decision = publish.DecideHost(a.host, g.guard, a.lookup, due[a.host])
		if a.byForm || a.lookup.Err == nil && len(a.lookup.Addrs) > 0 {
			cur.nextCheck = now.Add(g.recheck)
		} else {
			cur.nextCheck = now.Add(min(publishLookupRetry, g.recheck))
		}
	}
	out := make([]publish.HostDecision, len(hosts))
	for i, h := range hosts {
		if cur := g.hosts[h]; cur != nil {
			cur.usedAt = now
			out[i] = cur.decision
		}
	}
	g.forgetIdle(now)
	return out
}

// forgetIdle drops decisions no map has used for ten recheck intervals, once there are
// more than maxGuardedHosts of them.
func (g *publishGuard) forgetIdle(now time.Time) {
	if len(g.hosts) <= maxGuardedHosts {
		return
	}
	for h, cur := range g.hosts {
		if now.Sub(cur.usedAt) > 10*g.recheck {
			delete(g.hosts, h)
		}
	}
}

// announce logs and sends an event for each refusal that is new or changed for the map,
// and logs each unresolved host newly kept in its route.
func (g *publishGuard) announce(ctx context.Context, tm *omev1beta1.TrafficMap, refusals map[string]omev1beta1.LeftOutCluster, kept map[string]string,
	rec events.EventRecorder) {
	key := client.ObjectKeyFromObject(tm)
	g.mu.Lock()
	before, keptBefore := g.announced[key], g.kept[key]
	setOrDelete(g.announced, key, refusals)
	setOrDelete(g.kept, key, kept)
	g.mu.Unlock()
	log := ctrl.LoggerFrom(ctx)
	for cluster, host := range kept {
		if keptBefore[cluster] != host {
			log.Info("Keeping a published backend whose host cannot be resolved now: an earlier publication accepted it",
				"trafficMap", klog.KObj(tm), "cluster", cluster, "host", host)
		}
	}
	for cluster, out := range refusals {
		if before[cluster] == out {
			continue
		}
		log.Info("Leaving a backend out of the route: the publish guard refuses its host",
			"trafficMap", klog.KObj(tm), "cluster", cluster, "reason", out.Message)
		rec.Eventf(tm, related.WorkloadCluster(cluster), corev1.EventTypeWarning, EventBackendRefused, actionPublish,
			"Cluster %s left out of the route: %s", cluster, out.Message)
	}
}

// leftOut is what the last admit of the map left out of its route, sorted by cluster.
func (g *publishGuard) leftOut(key types.NamespacedName) []omev1beta1.LeftOutCluster {
	g.mu.Lock()
	defer g.mu.Unlock()
	list := make([]omev1beta1.LeftOutCluster, 0, len(g.announced[key]))
	for _, out := range g.announced[key] {
		list = append(list, out)
	}
	return publish.SortedLeftOut(list)
}

// setOrDelete sets m[key] to v, or deletes it when v is empty.
func setOrDelete[V any](m map[types.NamespacedName]map[string]V, key types.NamespacedName, v map[string]V) {
	if len(v) == 0 {
		delete(m, key)
		return
	}
	m[key] = v
}

// forget drops what the guard announced for a map that is gone.
func (g *publishGuard) forget(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.announced, key)
	delete(g.kept, key)
}
