package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/framework/stats"
)

// The members the fault part turns on: one hangs, one flaps. Both sit behind a fault proxy
// from the start (passing until then), on different API servers.
const (
	hungMember = 0
	flapMember = 1
	// flapHalf is how long the flapping member's API server is dropped, then reachable, in turn.
	flapHalf = 5 * time.Second
)

// TestFleet runs the operator over 50 WorkloadClusters and prints what each member costs
// the manager and how the fleet copes with a member that hangs, one that flaps and a
// control plane API server that restarts:
//
//	fleet setup    …  the layout, and what the stand-in for 50 clusters leaves unmeasured
//	fleet memory   …  heap in use and goroutines per member, with empty member caches and
//	                  with the services on them
//	fleet startup  …  a manager's first start on the fleet: to every WorkloadCluster
//	                  Ready=True and to every TrafficMap written with every home Passing
//	fleet gate     …  other members' homes switched to failing: the time to weight 0 on the
//	                  map, with no fault and while one member hangs and another flaps
//	fleet recover  …  the faults' own course: the hang to ConnectionFailed, the release to
//	                  every member Reachable again
//	fleet restart  …  the control plane's kube-apiserver stopped and started: to every
//	                  TrafficMap written again and every WorkloadCluster Ready
//
// 50 envtest API servers do not fit a 2-core machine, so the 50 members share a few API
// servers (5, ten members each). Each member is its own user with its own client
// certificate, so the manager holds one connection set and one cache per member, as it
// would for 50 clusters. Each of the 200 routed services is placed on three members on
// three different API servers (fleetLayout: 12 homes per member), with a 2 s probe period
// and its endpoints on the members' home servers, loopback HTTP servers from
// startHomeServer, one per member. What that leaves unmeasured: network latency to each member (all
// is loopback), the load of 50 distinct API servers (five serve 50 members' lists,
// watches and health checks), and the size of a member's cache: a member caches every copy
// on its API server, its neighbours' too (120 instead of its own 12 at 200 services), so
// the memory line also estimates the heap per member with its own copies alone. It runs
// without leader election, which a released manager has on.
//
// OME_BENCH_FLEET_MEMBERS (50), OME_BENCH_FLEET_APISERVERS (5, at least 3, dividing the
// members), OME_BENCH_FLEET_SERVICES (200) and OME_BENCH_FLEET_GATES (10 gate samples per
// round) change the size; OME_BENCH_FLEET_HEAP_PROFILE names a file for a heap profile
// taken once the members are connected, their caches empty. It reports and never asserts
// a time.
func TestFleet(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("fleet benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS) to run it; `make bench` does")
	}
	layout := fleetLayout{
		members:    framework.EnvInt(t, "OME_BENCH_FLEET_MEMBERS", 50),
		apiservers: framework.EnvInt(t, "OME_BENCH_FLEET_APISERVERS", 5),
		services:   framework.EnvInt(t, "OME_BENCH_FLEET_SERVICES", 200),
	}
	if layout.apiservers < fleetPlacements || layout.members%layout.apiservers != 0 {
		t.Fatalf("%d members on %d API servers: want at least %d API servers, dividing the members", layout.members, layout.apiservers, fleetPlacements)
	}
	gates := framework.EnvInt(t, "OME_BENCH_FLEET_GATES", 10)
	if path := os.Getenv("OME_BENCH_LOG"); path != "" {
		_ = os.Remove(path)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	r := &fleetRun{t: t, ctx: ctx, layout: layout, cost: newAPICost()}
	start := time.Now()
	r.startFleetClusters()
	r.prepareMembers(hungMember, flapMember)
	homes := layout.services * fleetPlacements
	fmt.Printf("fleet setup members=%d apiservers=%d members_per_apiserver=%d services=%d clusters_per_service=%d homes=%d homes_per_member=%d "+
		"copies_cached_per_member=%d period=%s fleet_start=%s stand_in=%d_workloadclusters_with_own_users_and_connections_on_%d_envtest_apiservers "+
		"unmeasured=network_latency_per_member,watch_load_of_%d_distinct_apiservers,own_copies_only_member_caches,leader_election\n",
		layout.members, layout.apiservers, layout.members/layout.apiservers, layout.services, fleetPlacements, homes, homes/layout.members,
		layout.copiesPerServer(), period, time.Since(start).Round(time.Second), layout.members, layout.apiservers, layout.members)

	r.measureMemory()
	r.measureStartup()
	r.measureFaults(gates)
	r.measureRestart()
	if n := r.errors.ReconcilerErrors(); n > 0 {
		t.Logf("the last manager logged %d reconciler errors; the first: %s", n, r.errors.First())
	}
}

// measureMemory starts a manager with no member and no service, then registers the 50
// members (their API servers empty), then creates the services, and prints the heap and
// the goroutines each step added, per member. The manager runs in this process; what the
// test itself holds meanwhile (the home servers' connections, the proxies) is counted as
// little as possible: the test watches nothing with an informer during this part, and the
// goroutines of the home servers and proxies are left out of the count.
func (r *fleetRun) measureMemory() {
	t, n := r.t, r.layout.members
	mgr := r.startFleetManager()
	if !mgr.GetCache().WaitForCacheSync(r.ctx) {
		t.Fatal("the manager's cache did not sync")
	}
	heap0, g0 := r.settled()

	registered := time.Now()
	r.registerMembers()
	r.pollUntil("every member is Ready", 5*time.Minute, 250*time.Millisecond, func() bool { return r.listReady() == n },
		func() string { return fmt.Sprintf("%d of %d Ready", r.listReady(), n) })
	toReady := time.Since(registered)
	heap1, g1 := r.settled()
	if path := os.Getenv("OME_BENCH_FLEET_HEAP_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("fleet memory caches=empty members=%d baseline_heap_inuse_mib=%.1f baseline_goroutines=%.0f heap_inuse_per_member_kib=%.0f "+
		"goroutines_per_member=%.1f register_to_all_ready=%s\n",
		n, mib(heap0), g0, kib(heap1-heap0)/float64(n), (g1-g0)/float64(n), toReady.Round(100*time.Millisecond))

	created := time.Now()
	r.createFleetServices()
	r.pollUntil("every map has every home Passing", 10*time.Minute, time.Second, func() bool { return r.listPassing() == r.layout.services },
		func() string {
			return fmt.Sprintf("%d of %d maps with every home Passing", r.listPassing(), r.layout.services)
		})
	toPassing := time.Since(created)
	heap2, g2 := r.settled()
	perCopy, cached := r.heapPerCachedCopy()
	perMember := kib(heap2-heap0) / float64(n)
	ownCopies := r.layout.services * fleetPlacements / n
	fmt.Printf("fleet memory caches=with_services members=%d services=%d heap_inuse_per_member_kib=%.0f goroutines_per_member=%.1f "+
		"homes_per_member=%d copies_cached_per_member=%d copies_own_per_member=%d heap_per_cached_copy_kib=%.2f copies_cached_by_test=%d "+
		"est_heap_inuse_per_member_own_copies_only_kib=%.0f create_to_all_passing=%s\n",
		n, r.layout.services, perMember, (g2-g0)/float64(n), ownCopies, r.layout.copiesPerServer(), ownCopies, perCopy, cached,
		perMember-float64(r.layout.copiesPerServer()-ownCopies)*perCopy, toPassing.Round(100*time.Millisecond))
}

// settled is the heap in use after two collections and the median goroutine count over two
// seconds, leaving out the test's home servers and proxies.
func (r *fleetRun) settled() (heapInuse uint64, goroutines float64) {
	var counts []int
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for range 20 {
		<-tick.C // sampling, not waiting on anything
		counts = append(counts, managerGoroutines())
	}
	slices.Sort(counts)
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, float64(counts[len(counts)/2])
}

// managerGoroutines counts the process's goroutines but those of the test's home servers
// (an http.Server's connections) and fault proxies, which stand in for what a real fleet
// runs elsewhere.
func managerGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if len(g) == 0 || bytes.Contains(g, []byte("net/http.(*conn).serve")) || bytes.Contains(g, []byte("bench.(*faultProxy)")) {
			continue
		}
		count++
	}
	return count
}

// heapPerCachedCopy caches every API server's copies in this process, as a member's cache
// does, and returns the heap that added per copy: the heap of caches that hold every copy
// less that of the same caches selecting none, over the copies.
func (r *fleetRun) heapPerCachedCopy() (kibPerCopy float64, copies int) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	none := labels.SelectorFromSet(labels.Set{"ome.io/bench-selects": "nothing"})
	empty, _ := r.copyCaches(ctx, none)
	before := medianHeap()
	full, copies := r.copyCaches(ctx, labels.Everything())
	after := medianHeap()
	runtime.KeepAlive(empty)
	runtime.KeepAlive(full)
	return kib(after-before) / float64(max(copies, 1)), copies
}

// copyCaches starts a cache of the InferenceServices matching selector on every member API
// server and returns them with the count they hold.
func (r *fleetRun) copyCaches(ctx context.Context, selector labels.Selector) ([]cache.Cache, int) {
	t := r.t
	var caches []cache.Cache
	copies := 0
	for _, api := range r.apis {
		c := framework.StartWatch(ctx, t, api.Config, cache.Options{DefaultLabelSelector: selector},
			framework.On(&omev1beta1.InferenceService{}, nil, nil))
		list := &omev1beta1.InferenceServiceList{}
		if err := c.List(ctx, list); err != nil {
			t.Fatal(err)
		}
		copies += len(list.Items)
		caches = append(caches, c)
	}
	return caches, copies
}

// medianHeap is the median of three heapNow readings: the manager keeps probing meanwhile,
// and what it holds in flight moves a single reading.
func medianHeap() uint64 {
	var hs []uint64
	for range 3 {
		h, _ := heapNow()
		hs = append(hs, h)
	}
	return stats.Median(hs)
}

func heapNow() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, runtime.NumGoroutine()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// kib is a heap difference in KiB; it may be negative.
func kib(b uint64) float64 { return float64(int64(b)) / 1024 }

// listReady counts the WorkloadClusters that are Ready=True, read from the control plane
// (-1 while it does not answer).
func (r *fleetRun) listReady() int {
	list := &omev1beta1.WorkloadClusterList{}
	if err := r.fleet.ControlPlane.Client.List(r.ctx, list); err != nil {
		return -1
	}
	n := 0
	for i := range list.Items {
		if isReady(&list.Items[i]) {
			n++
		}
	}
	return n
}

func isReady(wc *omev1beta1.WorkloadCluster) bool {
	for _, c := range wc.Status.Conditions {
		if c.Type == omev1beta1.WorkloadClusterReady {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// listPassing counts the maps on the control plane with every home Passing.
func (r *fleetRun) listPassing() int {
	list := &omev1beta1.TrafficMapList{}
	if err := r.fleet.ControlPlane.Client.List(r.ctx, list, client.InNamespace(namespace)); err != nil {
		return -1
	}
	n := 0
	for i := range list.Items {
		if allHomesPassing(&list.Items[i]) {
			n++
		}
	}
	return n
}

// allHomesPassing says whether the map has an entry per placement, each probed Passing
// with a positive weight.
func allHomesPassing(tm *omev1beta1.TrafficMap) bool {
	if len(tm.Spec.Entries) != fleetPlacements {
		return false
	}
	for _, e := range tm.Spec.Entries {
		if e.Probe == nil || e.Probe.Result != omev1beta1.ProbePassing || e.Weight == 0 {
			return false
		}
	}
	return true
}

// watchedPassing counts the maps the map watch holds with every home Passing.
func (r *fleetRun) watchedPassing() int {
	w := r.maps
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, tm := range w.latest {
		if allHomesPassing(tm) {
			n++
		}
	}
	return n
}

// pollUntil polls cond every interval until it holds; state, if given, says what it found
// when it gives up.
func (r *fleetRun) pollUntil(what string, timeout, interval time.Duration, cond func() bool, state ...func() string) {
	r.t.Helper()
	waitEvery(r.ctx, r.t, what, timeout, interval, cond, state...)
}

// measureStartup stops the manager, removes what it wrote (the maps, the members' status),
// and times a new manager's start on the fleet as it stands: 50 WorkloadClusters and the
// services already there.
func (r *fleetRun) measureStartup() {
	t, cp := r.t, r.fleet.ControlPlane.Client
	r.stop()
	if err := cp.DeleteAllOf(r.ctx, &omev1beta1.TrafficMap{}, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	r.pollUntil("every map is gone", time.Minute, 250*time.Millisecond, func() bool {
		list := &omev1beta1.TrafficMapList{}
		return cp.List(r.ctx, list, client.InNamespace(namespace)) == nil && len(list.Items) == 0
	})
	list := &omev1beta1.WorkloadClusterList{}
	if err := cp.List(r.ctx, list); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		wc := &list.Items[i]
		wc.Status = omev1beta1.WorkloadClusterStatus{}
		if err := cp.Status().Update(r.ctx, wc); err != nil {
			t.Fatal(err)
		}
	}
	r.clusters = startClusterWatch(r.ctx, t, r)
	r.maps = startMapWatch(r.ctx, t, r.fleet.ControlPlane.Config)
	r.pollUntil("the watch sees no member Ready", time.Minute, 100*time.Millisecond, func() bool { ready, _ := r.clusters.ready(); return ready == 0 })

	procs := r.apiserverProcs()
	cpu0 := procs.cpu(t)
	started := time.Now()
	r.startFleetManager()
	r.pollUntil("every member is Ready", 5*time.Minute, 50*time.Millisecond, func() bool { _, ok := r.clusters.ready(); return ok == r.layout.members },
		r.clusters.notReady)
	ready := r.clusters.readyTimes()
	r.pollUntil("every map has every home Passing", 10*time.Minute, 50*time.Millisecond, func() bool { return r.watchedPassing() == r.layout.services },
		func() string {
			return fmt.Sprintf("%d of %d maps with every home Passing", r.watchedPassing(), r.layout.services)
		})
	toPassing := time.Since(started)
	cpu := procs.cpu(t).minus(cpu0)
	var sinceStart []time.Duration
	for _, at := range ready {
		sinceStart = append(sinceStart, at.Sub(started))
	}
	fmt.Printf("fleet startup members=%d services=%d start_to_first_member_ready=%s start_to_median_member_ready=%s start_to_all_members_ready=%s "+
		"start_to_all_maps_passing=%s control_plane_apiserver_cpu_s=%.1f member_apiservers_cpu_s=%.1f reconcile_errors=%d\n",
		r.layout.members, r.layout.services, ms(slices.Min(sinceStart)), ms(stats.Median(sinceStart)), ms(stats.Max(sinceStart)), ms(toPassing),
		cpu.controlPlane.Seconds(), cpu.members.Seconds(), r.errors.ReconcilerErrors())
}

// fleetProcs are the process ids of the control plane's API server and the members'.
type fleetProcs struct {
	controlPlane int
	members      []int
}

type fleetCPU struct{ controlPlane, members time.Duration }

func (r *fleetRun) apiserverProcs() fleetProcs {
	p := fleetProcs{controlPlane: findControlPlane(r.t, r.fleet.ControlPlane.Config).apiserver}
	for _, api := range r.apis {
		p.members = append(p.members, findControlPlane(r.t, api.Config).apiserver)
	}
	return p
}

func (p fleetProcs) cpu(t *testing.T) fleetCPU {
	c := fleetCPU{controlPlane: procCPU(t, p.controlPlane)}
	for _, pid := range p.members {
		c.members += procCPU(t, pid)
	}
	return c
}

func (c fleetCPU) minus(o fleetCPU) fleetCPU {
	return fleetCPU{c.controlPlane - o.controlPlane, c.members - o.members}
}

// gateSamples picks n homes per round for rounds rounds, each of a different service not
// placed on any member in avoid, spread over as many members as there are.
func (r *fleetRun) gateSamples(rounds, n int, avoid ...int) [][]sample {
	var picked []sample
	usedService := map[int]bool{}
	usedMember := map[int]bool{}
	for pass := range 2 {
		for i := 0; i < r.layout.services && len(picked) < rounds*n; i++ {
			placed := r.layout.placement(i)
			if usedService[i] || slices.ContainsFunc(placed, func(j int) bool { return slices.Contains(avoid, j) }) {
				continue
			}
			j := placed[len(picked)%len(placed)]
			if pass == 0 && usedMember[j] {
				continue
			}
			usedService[i], usedMember[j] = true, true
			name := serviceName(i)
			picked = append(picked, sample{key: types.NamespacedName{Namespace: namespace, Name: name}, cluster: r.layout.member(j), home: r.homes[j].home(name)})
		}
	}
	if len(picked) < rounds {
		r.t.Fatalf("only %d services are placed away from members %v", len(picked), avoid)
	}
	per := len(picked) / rounds
	out := make([][]sample, rounds)
	for k := range rounds {
		out[k] = picked[k*per : (k+1)*per]
	}
	return out
}

// gateRound switches each sample's home to failing right after a passing probe and prints
// how long each took to reach weight 0 on the map, with what the manager did meanwhile.
func (r *fleetRun) gateRound(label string, samples []sample, extra string) {
	t := r.t
	routing0 := routingQueue(t)
	cpu0, t0 := cpuTime(t), time.Now()
	errors0 := r.errors.ReconcilerErrors()
	r.cost.reset()
	r.cost.count(true)
	for _, s := range samples {
		r.maps.expectGate(s.key, s.cluster)
		s.home.arm()
	}
	r.pollUntil("every sampled home has weight 0", failureThreshold*period+2*time.Minute, 20*time.Millisecond, func() bool {
		for _, s := range samples {
			if r.maps.gatedAt(s.key).IsZero() {
				return false
			}
		}
		return true
	})
	r.cost.count(false)
	elapsed, cpu := time.Since(t0), cpuTime(t)-cpu0
	routing := routingQueue(t).minus(routing0)
	delays, fromDecision := gateDelays(samples, r.maps)
	perS := func(v float64) float64 { return v / elapsed.Seconds() }
	fmt.Printf("fleet gate faults=%s samples=%d members_sampled=%d failure_threshold=%d operator_delay_median=%s operator_delay_max=%s "+
		"deciding_probe_to_weight0_median=%s deciding_probe_to_weight0_max=%s gate_queue_wait_mean=%s routing_reconciles_per_s=%.1f "+
		"routing_queue_wait_mean=%s control_plane_writes_per_s=%.1f process_cpu_cores=%.2f reconcile_errors=%d%s\n",
		label, len(samples), distinctClusters(samples), failureThreshold, ms(stats.Median(delays)), ms(stats.Max(delays)),
		ms(stats.Median(fromDecision)), ms(stats.Max(fromDecision)), ms(routing.transitionWaitMean()), perS(routing.reconciles),
		ms(routing.waitMean()), perS(float64(r.cost.writeCount())), cpu.Seconds()/elapsed.Seconds(),
		r.errors.ReconcilerErrors()-errors0, extra)
}

func distinctClusters(samples []sample) int {
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.cluster] = true
	}
	return len(seen)
}

// lift makes the samples' homes pass again and waits until each is back at a positive weight.
func (r *fleetRun) lift(samples []sample) {
	for _, s := range samples {
		s.home.pass()
	}
	r.pollUntil("every sampled home is lifted", 2*time.Minute, 50*time.Millisecond, func() bool {
		r.maps.mu.Lock()
		defer r.maps.mu.Unlock()
		for _, s := range samples {
			tm := r.maps.latest[s.key]
			if tm == nil {
				return false
			}
			for _, e := range tm.Spec.Entries {
				if e.Cluster == s.cluster && (e.Weight == 0 || e.Probe == nil || e.Probe.Result != omev1beta1.ProbePassing) {
					return false
				}
			}
		}
		return true
	})
}

// measureFaults times gates on healthy members twice: with every member answering, and
// while one member's API server hangs (its proxy accepts and never answers) and another's
// flaps (dropped and back every flapHalf). The samples avoid both members' services.
func (r *fleetRun) measureFaults(gates int) {
	rounds := r.gateSamples(2, gates, hungMember, flapMember)
	r.gateRound("none", rounds[0], "")
	r.lift(rounds[0])

	hung, flapping := r.layout.member(hungMember), r.layout.member(flapMember)
	r.clusters.reset()
	faulted := time.Now()
	r.proxies[hungMember].setMode(proxyHang)
	stopFlap := r.proxies[flapMember].flap(flapHalf)
	grace := controllers.DefaultMemberTimings.MemberGrace
	r.pollUntil(hung+" is ConnectionFailed", grace+2*time.Minute, 50*time.Millisecond, func() bool {
		return r.clusters.reason(hung) == string(omev1beta1.WorkloadClusterReasonConnectionFailed)
	}, func() string { return hung + " is " + r.clusters.reason(hung) })
	toFailed := time.Since(faulted)
	r.gateRound("hang+flap", rounds[1], fmt.Sprintf(" hung=%s hung_state=%s flapping=%s flapping_state=%s flap_half=%s",
		hung, r.clusters.reason(hung), flapping, r.clusters.reason(flapping), flapHalf))

	released := time.Now()
	faultTime := released.Sub(faulted)
	stopFlap()
	r.proxies[hungMember].setMode(proxyPass)
	r.pollUntil("every member is Reachable again", 5*time.Minute, 50*time.Millisecond, func() bool { _, ok := r.clusters.ready(); return ok == r.layout.members },
		r.clusters.notReady)
	toReachable := time.Since(released)
	fmt.Printf("fleet recover hung=%s hang_to_connection_failed=%s member_grace=%s member_timeout=%s health_interval=%s faults_lasted=%s "+
		"flapping_drops=%d flapping_status_changes=%d hung_status_changes=%d other_members_status_changes=%d release_to_all_reachable=%s\n",
		hung, ms(toFailed), grace, controllers.DefaultMemberTimings.MemberTimeout, controllers.DefaultMemberTimings.MemberHealthInterval,
		ms(faultTime), r.proxies[flapMember].drops.Load(), r.clusters.changed(flapping), r.clusters.changed(hung), r.otherChanges(hung, flapping),
		ms(toReachable))
	r.lift(rounds[1])
}

// otherChanges is how many status changes the members but the named ones made since the
// cluster watch's last reset.
func (r *fleetRun) otherChanges(except ...string) int {
	w := r.clusters
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for name, c := range w.changes {
		if !slices.Contains(except, name) {
			n += c
		}
	}
	return n
}

// measureRestart stops the control plane's kube-apiserver under the running manager and
// starts it again (etcd keeps running), and times, from its return, until every map has a
// version newer than the restart (newer than the first list the restarted API server
// answers) and every member reads Ready=True. Meanwhile it notes how long the API server
// still answered after SIGTERM.
func (r *fleetRun) measureRestart() {
	t, cp := r.t, r.fleet.ControlPlane
	r.pollUntil("every map has every home Passing", 2*time.Minute, 50*time.Millisecond, func() bool { return r.watchedPassing() == r.layout.services })
	list := &omev1beta1.TrafficMapList{}
	if err := cp.Client.List(r.ctx, list, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	for _, tm := range list.Items {
		before[tm.Name] = tm.ResourceVersion
	}
	errors0 := r.errors.ReconcilerErrors()
	stopped := time.Now()
	answered := r.answeringFor(stopped)
	if err := cp.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	down := time.Since(stopped)
	servedAfterTerm := answered()
	starting := time.Now()
	if err := cp.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	var allReady time.Duration
	var cut uint64
	duringStop := 0
	// writtenAt is when each map was first seen with a version newer than the cut.
	writtenAt := map[string]time.Duration{}
	r.pollUntil("every map is written again and every member is Ready", 10*time.Minute, 100*time.Millisecond, func() bool {
		now := time.Since(up)
		if allReady == 0 && r.listReady() == r.layout.members {
			allReady = now
		}
		maps := &omev1beta1.TrafficMapList{}
		if err := cp.Client.List(r.ctx, maps, client.InNamespace(namespace)); err != nil {
			return false
		}
		if cut == 0 {
			cut = resourceVersion(t, maps.ResourceVersion)
			for _, tm := range maps.Items {
				if before[tm.Name] != tm.ResourceVersion {
					duringStop++
				}
			}
		}
		for _, tm := range maps.Items {
			if _, done := writtenAt[tm.Name]; !done && before[tm.Name] != "" && resourceVersion(t, tm.ResourceVersion) > cut {
				writtenAt[tm.Name] = now
			}
		}
		return allReady > 0 && len(writtenAt) == len(before)
	}, func() string {
		return fmt.Sprintf("%d of %d maps written, %d members Ready", len(writtenAt), len(before), r.listReady())
	})
	var written []time.Duration
	for _, d := range writtenAt {
		written = append(written, d)
	}
	changed := 0
	wcs := &omev1beta1.WorkloadClusterList{}
	if err := cp.Client.List(r.ctx, wcs); err != nil {
		t.Fatal(err)
	}
	for i := range wcs.Items {
		for _, c := range wcs.Items[i].Status.Conditions {
			if c.Type == omev1beta1.WorkloadClusterReady && !c.LastTransitionTime.Time.Before(stopped.Truncate(time.Second)) {
				changed++
			}
		}
	}
	fmt.Printf("fleet restart apiserver_answered_after_sigterm=%s apiserver_stop=%s apiserver_start=%s maps=%d maps_written_while_stopping=%d "+
		"up_to_first_map_written=%s up_to_median_map_written=%s up_to_every_map_written=%s up_to_every_member_ready=%s members_whose_ready_changed=%d "+
		"reconcile_errors=%d poll_interval=100ms\n",
		ms(servedAfterTerm), ms(down), ms(up.Sub(starting)), len(before), duringStop, ms(slices.Min(written)), ms(stats.Median(written)), ms(stats.Max(written)), ms(allReady), changed,
		r.errors.ReconcilerErrors()-errors0)
}

// answeringFor polls the control plane every 100 ms from now on and returns a function
// that stops it and says how long after since the API server answered its last list.
func (r *fleetRun) answeringFor(since time.Time) func() time.Duration {
	ctx, cancel := context.WithCancel(r.ctx)
	last := make(chan time.Duration, 1)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		answered := time.Duration(0)
		defer func() { last <- answered }()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			lctx, lcancel := context.WithTimeout(ctx, time.Second)
			err := r.fleet.ControlPlane.Client.List(lctx, &omev1beta1.WorkloadClusterList{})
			lcancel()
			if err != nil {
				r.t.Logf("the control plane's first refusal after SIGTERM: %v", err)
				return
			}
			answered = time.Since(since)
		}
	}()
	return func() time.Duration {
		cancel()
		return <-last
	}
}

func resourceVersion(t *testing.T, rv string) uint64 {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", rv, err)
	}
	return n
}
