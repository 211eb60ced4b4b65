package bench

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	opconfig "github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/framework"
)

// fleetPlacements is how many members each routed service is placed on.
const fleetPlacements = 3

// memberGroup is the group every member user is in; one binding per API server gives it
// envfleet.MemberRules, the rights docs/install.md asks a member to grant.
const memberGroup = "ome-routing-members"

// fleetLayout is how the bench lays 50 WorkloadClusters over a few API servers. Member j
// is served by API server j mod apiservers; service i is placed on three members served
// by three different API servers (so that no API server holds two copies of one service,
// which would have to share one status.url), q·A+s, q·A+(s+1) and q·A+(s+2) with
// s = i mod A and q = (i div A) mod (members/A): every member gets 3·services/members homes.
type fleetLayout struct {
	members, apiservers, services int
}

func (l fleetLayout) member(j int) string { return fmt.Sprintf("member-%02d", j) }

func (l fleetLayout) server(j int) int { return j % l.apiservers }

// placement is the members service i is placed on.
func (l fleetLayout) placement(i int) []int {
	s := i % l.apiservers
	q := (i / l.apiservers) % (l.members / l.apiservers)
	out := make([]int, fleetPlacements)
	for d := range out {
		out[d] = q*l.apiservers + (s+d)%l.apiservers
	}
	return out
}

// copiesPerServer is how many copies each API server holds, and so how many every member
// it serves caches: the copies of all its members' services, not only its own.
func (l fleetLayout) copiesPerServer() int {
	return l.services * fleetPlacements / l.apiservers
}

// fleetRun is the fleet bench's clusters, members and manager.
type fleetRun struct {
	t      *testing.T
	ctx    context.Context
	layout fleetLayout
	fleet  *envfleet.Fleet
	// apis are the API servers the members share.
	apis []*envfleet.Cluster
	// homes is each member's model-server endpoint (one loopback HTTP server per member).
	homes []*homeServer
	// kubeconfigs is each member's kubeconfig: its own user, and for the members behind a
	// proxy, the proxy's address.
	kubeconfigs [][]byte
	proxies     map[int]*faultProxy
	hosts       map[string]netip.Addr
	cost        *apiCost
	errors      *framework.LogCheck
	stop        func()
	maps        *mapWatch
	clusters    *clusterWatch
}

// startFleetClusters starts the control plane and the members' API servers in parallel.
func (r *fleetRun) startFleetClusters() {
	t := r.t
	names := []string{"control-plane"}
	for i := range r.layout.apiservers {
		names = append(names, fmt.Sprintf("api-%d", i))
	}
	started := make([]*envfleet.Cluster, len(names))
	var g errgroup.Group
	for i, name := range names {
		g.Go(func() error {
			var err error
			started[i], err = envfleet.StartCluster(name)
			return err
		})
	}
	err := g.Wait()
	r.fleet = &envfleet.Fleet{ControlPlane: started[0], Workers: map[string]*envfleet.Cluster{}}
	for i, c := range started[1:] {
		if c != nil {
			r.fleet.Workers[names[i+1]] = c
		}
	}
	t.Cleanup(func() { _ = r.fleet.Stop() })
	if err != nil {
		t.Fatal(err)
	}
	r.apis = started[1:]
	if err := r.fleet.ControlPlane.Client.Create(r.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: envfleet.SecretNamespace}}); err != nil {
		t.Fatal(err)
	}
}

// prepareMembers gives every member its own user on its API server (so that each
// WorkloadCluster has its own client certificate, and with it its own connections and its
// own cache in the manager, as distinct clusters would), its home server, and for the
// members in proxied a fault proxy in front of its API server.
func (r *fleetRun) prepareMembers(proxied ...int) {
	t := r.t
	for _, api := range r.apis {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "ome-routing-member-reader"}, Rules: envfleet.MemberRules}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "ome-routing-member-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: memberGroup}},
		}
		for _, obj := range []client.Object{role, binding} {
			if err := api.Client.Create(r.ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.proxies = map[int]*faultProxy{}
	r.hosts = map[string]netip.Addr{}
	for j := range r.layout.members {
		name := r.layout.member(j)
		api := r.apis[r.layout.server(j)]
		user, err := api.Env.AddUser(envtest.User{Name: "ome-routing-" + name, Groups: []string{memberGroup}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		kc, err := user.KubeConfig()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range proxied {
			if p == j {
				r.proxies[j] = startFaultProxy(t, hostPort(t, api.Config.Host))
				kc = withServer(t, kc, "https://"+r.proxies[j].addr())
			}
		}
		r.kubeconfigs = append(r.kubeconfigs, kc)
		r.homes = append(r.homes, startHomeServer(t, name))
		r.hosts[name+".bench.test"] = netip.MustParseAddr("127.0.0.1")
	}
}

func hostPort(t *testing.T, host string) string {
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// withServer is the kubeconfig with every cluster's server replaced.
func withServer(t *testing.T, kubeconfig []byte, server string) []byte {
	kc, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = server
	}
	out, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// registerMembers creates every member's kubeconfig Secret and WorkloadCluster, eight at
// a time.
func (r *fleetRun) registerMembers() {
	g, gctx := errgroup.WithContext(r.ctx)
	g.SetLimit(8)
	cp := r.fleet.ControlPlane.Client
	for j := range r.layout.members {
		name := r.layout.member(j)
		g.Go(func() error {
			secret := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: envfleet.SecretNamespace},
				Data:       map[string][]byte{omev1beta1.DefaultKubeConfigKey: r.kubeconfigs[j]},
			}
			if err := cp.Create(gctx, secret); err != nil {
				return err
			}
			return cp.Create(gctx, &omev1beta1.WorkloadCluster{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
					SecretRef: omev1beta1.SecretReference{Name: secret.Name, Namespace: secret.Namespace},
				}}},
			})
		})
	}
	if err := g.Wait(); err != nil {
		r.t.Fatal(err)
	}
}

// createFleetServices creates per service a ready copy on each of its three members' API
// servers (status.url on that member's home server) and the routed source on the control
// plane, placed on those members by name, eight services at a time.
func (r *fleetRun) createFleetServices() {
	if err := r.fleet.ControlPlane.Client.Create(r.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		r.t.Fatal(err)
	}
	g, gctx := errgroup.WithContext(r.ctx)
	g.SetLimit(8)
	for i := range r.layout.services {
		name := serviceName(i)
		key := client.ObjectKey{Namespace: namespace, Name: name}
		g.Go(func() error {
			var placed []string
			for _, j := range r.layout.placement(i) {
				api := r.apis[r.layout.server(j)]
				if err := envfleet.PlaceCopy(gctx, api.Client, key, r.homes[j].url(name), 1, 1); err != nil {
					return fmt.Errorf("copy of %s for %s: %w", name, r.layout.member(j), err)
				}
				placed = append(placed, r.layout.member(j))
			}
			return r.fleet.ControlPlane.Client.Create(gctx, envfleet.SourceService(key, placed, nil))
		})
	}
	if err := g.Wait(); err != nil {
		r.t.Fatal(err)
	}
}

// startFleetManager runs the controllers in this process as startManager does (the
// chart's defaults, the bench's period and worker count, member timings as released),
// with the members' host names resolving to loopback. It returns the manager, so that
// the bench can wait for its caches.
func (r *fleetRun) startFleetManager() ctrl.Manager {
	var m *framework.Manager
	m, r.stop = startBenchManager(r.t, &framework.Environment{Fleet: r.fleet},
		opconfig.Config{Routing: opconfig.Routing{Enabled: true, Probe: installationProbe(r.t), Observer: benchObserver()}},
		framework.WithConfig(r.cost.wrap(r.fleet.ControlPlane.Config)), framework.WithHosts(r.hosts))
	r.errors = m.Check
	return m.Manager
}

// clusterWatch follows the WorkloadClusters on the control plane with an informer of its
// own: each one's Ready condition, when it was first seen True since the last reset, and
// how often its status or reason changed.
type clusterWatch struct {
	mu      sync.Mutex
	latest  map[string]metav1.Condition
	readyAt map[string]time.Time
	changes map[string]int
}

func startClusterWatch(ctx context.Context, t *testing.T, r *fleetRun) *clusterWatch {
	w := &clusterWatch{latest: map[string]metav1.Condition{}, readyAt: map[string]time.Time{}, changes: map[string]int{}}
	framework.StartWatch(ctx, t, r.fleet.ControlPlane.Config, cache.Options{},
		framework.On(&omev1beta1.WorkloadCluster{}, w.observe, func(_, wc *omev1beta1.WorkloadCluster) { w.observe(wc) }))
	return w
}

func (w *clusterWatch) observe(wc *omev1beta1.WorkloadCluster) {
	now := time.Now()
	var cond metav1.Condition
	if c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady); c != nil {
		cond = *c
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, seen := w.latest[wc.Name]
	if seen && (prev.Status != cond.Status || prev.Reason != cond.Reason) {
		w.changes[wc.Name]++
	}
	w.latest[wc.Name] = cond
	if cond.Status == metav1.ConditionTrue && w.readyAt[wc.Name].IsZero() {
		w.readyAt[wc.Name] = now
	}
}

// reset forgets when each member was first Ready and how often it changed.
func (w *clusterWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.readyAt, w.changes = map[string]time.Time{}, map[string]int{}
}

// ready is how many members are Ready=True, and how many of those Reachable.
func (w *clusterWatch) ready() (ready, reachable int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.latest {
		if c.Status == metav1.ConditionTrue {
			ready++
			if c.Reason == string(omev1beta1.WorkloadClusterReasonReachable) {
				reachable++
			}
		}
	}
	return ready, reachable
}

func (w *clusterWatch) reason(name string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest[name].Reason
}

func (w *clusterWatch) changed(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changes[name]
}

// readyTimes are the times the members were first seen Ready since the last reset.
func (w *clusterWatch) readyTimes() []time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []time.Time
	for _, at := range w.readyAt {
		out = append(out, at)
	}
	return out
}

// notReady names a few members that are not Ready=True and Reachable, with their reason.
func (w *clusterWatch) notReady() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for name, c := range w.latest {
		if (c.Status != metav1.ConditionTrue || c.Reason != string(omev1beta1.WorkloadClusterReasonReachable)) && len(out) < 5 {
			out = append(out, fmt.Sprintf("%s %s/%s", name, c.Status, c.Reason))
		}
	}
	return fmt.Sprint(out)
}
