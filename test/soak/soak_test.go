package soak

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/internal/proc"
	"github.com/ome-routing/operator/test/framework"
)

// leaseDuration is controller-runtime's default LeaseDuration, which the manager keeps:
// the chart sets no lease timings (RenewDeadline 10 s and RetryPeriod 2 s go with it).
const leaseDuration = 15 * time.Second

// TestSoak runs the fleet under faults for OME_SOAK_DURATION (30m by default) with
// OME_SOAK_SERVICES services (200), and prints one line per minute and the figures at
// the end. It fails on a lost or made-up gate, a gated home with a positive weight, two
// writers at once, an event storm or a route that never catches up with its map; the
// times it reports are for reading.
func TestSoak(t *testing.T) {
	if os.Getenv("OME_SOAK") == "" {
		t.Skip("soak: set OME_SOAK=1 (with KUBEBUILDER_ASSETS and HELM); `make soak` does")
	}
	// make soak names a binary stamped as `make build` stamps one (OME_MANAGER_BIN).
	bin, err := framework.ManagerBinary()
	if err != nil {
		t.Fatal(err)
	}
	duration := envDuration(t, "OME_SOAK_DURATION", 30*time.Minute)
	services := framework.EnvInt(t, "OME_SOAK_SERVICES", 200)
	sched := newSchedule(duration)
	out := outDir(t)
	print := func(line string) { fmt.Println(line) }
	print("soak plan services=" + strconv.Itoa(services) + " clusters=3 period=" + period.String() + " " + sched.String() + " logs=" + out)

	// The watcher's informers log through controller-runtime: into a file of their own.
	watcherLog, err := os.Create(out + "/watcher.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watcherLog.Close() })
	logf.SetLogger(zap.New(zap.WriteTo(watcherLog)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	fleet, err := envfleet.StartFleet(ctx, workers...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fleet.Stop() })
	cp := fleet.ControlPlane
	if _, err := cp.InstallChartRBAC(ctx, envfleet.SecretNamespace); err != nil {
		t.Fatal(err)
	}
	if err := cp.InstallGatewayCRDs(); err != nil {
		t.Fatal(err)
	}
	if err := cp.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gateway-system"}}); err != nil {
		t.Fatal(err)
	}

	ps := newProxies()
	cpProxy, err := ps.start("control-plane", cp.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cpProxy.stop)
	memberProxy, err := ps.start(cutOff, fleet.Workers[cutOff].Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(memberProxy.stop)
	if err := routeMemberThrough(ctx, fleet, cutOff, memberProxy.URL()); err != nil {
		t.Fatal(err)
	}
	kubeconfig := out + "/manager.kubeconfig"
	if err := managerKubeConfig(cp, cpProxy.URL(), kubeconfig); err != nil {
		t.Fatal(err)
	}
	settings := out + "/multicluster.json"
	if err := os.WriteFile(settings, managerSettings(t), 0o644); err != nil {
		t.Fatal(err)
	}

	servers := map[string]*homeServer{}
	homes := map[homeKey]*home{}
	for _, w := range workers {
		servers[w] = startHomeServer(t, w, services)
		for svc, h := range servers[w].homes {
			homes[homeKey{svc, w}] = h
		}
	}
	if err := createServices(ctx, fleet, servers, services); err != nil {
		t.Fatal(err)
	}
	watch := newWatcher(sched, services, homes)
	watch.run(ctx, t, cp.Config)

	var replicas []*replica
	for _, name := range []string{"a", "b"} {
		addr, err := proc.FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		r := &replica{name: name, bin: bin, kubeconfig: kubeconfig, settings: settings, metricsAddr: addr, logDir: out}
		if err := r.start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			r.stop()
			// As every suite's teardown does: no panic, no defect in any incarnation's log.
			if err := r.check.Err(); err != nil {
				t.Errorf("manager %s: %v", r.name, err)
			}
		})
		replicas = append(replicas, r)
	}
	smp := &sampler{replicas: replicas, cpHost: hostOf(cpProxy.URL()), fleet: fleet, watch: watch, services: services}
	waitUntil(t, "every map has every home passing and every route its map's weights", 15*time.Minute, watch.allPassing)
	print(fmt.Sprintf("soak setup fleet_and_services_to_all_published=%s", time.Since(started).Round(time.Second)))

	// The run: flapping starts, then the schedule's faults, while the sampler samples.
	for _, h := range homes {
		if h.behaviour.name != steady.name {
			h.startFlapping()
		}
	}
	start := time.Now()
	watch.begin(start)
	sctx, stopSampling := context.WithCancel(ctx)
	var sampling sync.WaitGroup
	sampling.Add(1)
	go func() { defer sampling.Done(); smp.run(sctx, start, print) }()
	for _, ev := range sched.events() {
		time.Sleep(time.Until(start.Add(ev.at))) // the schedule's own clock: a fault is due
		switch ev.what {
		case "kill":
			r := waitForLeader(t, smp)
			watch.killed(r.kill())
			if err := r.start(); err != nil {
				t.Fatal(err)
			}
		case "slow":
			must(t, cpProxy.slow(slowLatency.Milliseconds()))
		case "slower":
			must(t, cpProxy.slow(slowerLatency.Milliseconds()))
		case "fast":
			cpProxy.clear()
		case "cut":
			must(t, memberProxy.cut())
		case "restore":
			memberProxy.clear()
		}
		print(fmt.Sprintf("soak step at=%s %s", ev.at, ev.what))
	}
	time.Sleep(time.Until(start.Add(duration))) // the run lasts its duration
	end := time.Now()
	stopSampling()
	sampling.Wait()

	// Flapping stops, so that every route must settle on its map.
	for _, h := range homes {
		h.mu.Lock()
		h.flapping = false
		h.mu.Unlock()
	}
	settled := waitQuietly(5*time.Minute, watch.allPassing)
	r := report{t: t, sched: sched, watch: watch, sampler: smp, replicas: replicas, fleet: fleet, start: start, end: end, print: print}
	r.print(fmt.Sprintf("soak settle all_passing_and_published_after_flapping_stopped=%t", settled))
	r.run(ctx)
	if !settled {
		t.Errorf("after the run, the maps and routes did not all settle: %s", second(watch.allPassing()))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func second(_ bool, s string) string { return s }

// waitForLeader waits until a scrape names the leader.
func waitForLeader(t *testing.T, s *sampler) *replica {
	t.Helper()
	var r *replica
	waitUntil(t, "a replica leads", 2*time.Minute, func() (bool, string) {
		s.scrapeAll(context.Background())
		r = s.leader()
		return r != nil, "no replica's metrics say it leads"
	})
	return r
}

// waitUntil polls cond every second until it holds, or fails the test with what cond
// last said.
func waitUntil(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	if err := poll.Until(context.Background(), time.Second, timeout, stated(cond)); err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}

// waitQuietly is waitUntil that reports instead of failing.
func waitQuietly(timeout time.Duration, cond func() (bool, string)) bool {
	return poll.Until(context.Background(), time.Second, timeout, stated(cond)) == nil
}

// stated is a check for poll.Until from a condition that says what it found.
func stated(cond func() (bool, string)) func(context.Context) error {
	return func(context.Context) error {
		if ok, state := cond(); !ok {
			return errors.New(state)
		}
		return nil
	}
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 3*time.Minute {
		t.Fatalf("%s=%q: want a Go duration of at least 3m, such as 30m", name, v)
	}
	return d
}
