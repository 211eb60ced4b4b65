package bench

import (
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	opconfig "github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
)

// queueStats are the routing controller's counters from controller-runtime's registry:
// reconciles, and the time items spent queued and being worked on.
type queueStats struct {
	reconciles         float64
	waitSum, waitCount float64
	workSum, workCount float64
	// transitionSum and transitionCount are the operator's ome_routing_transition_wait_seconds:
	// how long results that gated or lifted a home waited for a reconcile to read them.
	transitionSum, transitionCount float64
}

func routingQueue(t *testing.T) queueStats { return controllerQueue(t, "routing") }

// controllerQueue is routingQueue for any controller: "publisher", say.
func controllerQueue(t *testing.T, controller string) queueStats {
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var q queueStats
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == "ome_routing_transition_wait_seconds" {
				q.transitionSum += m.GetHistogram().GetSampleSum()
				q.transitionCount += float64(m.GetHistogram().GetSampleCount())
				continue
			}
			routing := false
			for _, l := range m.GetLabel() {
				if (l.GetName() == "controller" || l.GetName() == "name") && l.GetValue() == controller {
					routing = true
				}
			}
			if !routing {
				continue
			}
			switch f.GetName() {
			case "controller_runtime_reconcile_total":
				q.reconciles += m.GetCounter().GetValue()
			case "workqueue_queue_duration_seconds":
				q.waitSum += m.GetHistogram().GetSampleSum()
				q.waitCount += float64(m.GetHistogram().GetSampleCount())
			case "workqueue_work_duration_seconds":
				q.workSum += m.GetHistogram().GetSampleSum()
				q.workCount += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return q
}

func (q queueStats) minus(o queueStats) queueStats {
	return queueStats{q.reconciles - o.reconciles, q.waitSum - o.waitSum, q.waitCount - o.waitCount, q.workSum - o.workSum, q.workCount - o.workCount,
		q.transitionSum - o.transitionSum, q.transitionCount - o.transitionCount}
}

func seconds(sum, count float64) time.Duration {
	if count == 0 {
		return 0
	}
	return time.Duration(sum / count * float64(time.Second))
}

func (q queueStats) waitMean() time.Duration { return seconds(q.waitSum, q.waitCount) }
func (q queueStats) workMean() time.Duration { return seconds(q.workSum, q.workCount) }
func (q queueStats) transitionWaitMean() time.Duration {
	return seconds(q.transitionSum, q.transitionCount)
}

// installationProbe is the spec's Step 1 probe with a 2s period.
func installationProbe(t *testing.T) *probe.Policy {
	spec := framework.GuideProbe(period, time.Second, omev1beta1.AllFailedPreserveTraffic)
	spec.FailureThreshold = ptr.To[int32](failureThreshold)
	p, errs := probe.Validate(probe.SpecFromAPI(spec), probe.InstallationPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return &p
}

// registerMetrics registers the operator's metrics once per process, as cmd/manager does.
var registerMetrics sync.Once

// managerSettings are what differs between the managers a run starts.
type managerSettings struct {
	// endpoint is the publisher's settings; their zero value publishes nothing.
	endpoint opconfig.Endpoint
	// recordInterval is routing.observer.recordInterval.
	recordInterval time.Duration
}

// startManager runs the controllers against the run's control plane as cmd/manager does,
// with the chart's default worker and request counts, its requests to the control plane
// counted by the run's cost and its reconciler errors by r.errors, and returns its stop.
// OME_BENCH_LOG names a file that gets the manager's log.
func (r *run) startManager(settings managerSettings) func() {
	observer := benchObserver()
	observer.RecordInterval = settings.recordInterval
	m, stop := startBenchManager(r.t, &framework.Environment{Fleet: r.fleet}, opconfig.Config{Endpoint: settings.endpoint,
		Routing: opconfig.Routing{Enabled: true, Probe: installationProbe(r.t), Observer: observer}},
		framework.WithConfig(r.cost.wrap(r.fleet.ControlPlane.Config)), framework.WithHosts(benchHosts()))
	r.errors = m.Check
	return stop
}

// benchObserver is the chart's observer settings with the bench's worker and request counts.
func benchObserver() opconfig.Observer {
	o := framework.ObserverSettings()
	o.MaxConcurrentReconciles, o.MaxConcurrentRequests = routingWorkers, maxRequests
	return o
}

// startBenchManager starts a manager on env as the runs of the bench do: the operator's
// metrics registered once per process, as cmd/manager does, and a JSON log, in
// OME_BENCH_LOG when it names a file. The manager stops at the end of the test, or with the
// returned stop, which fails the test on a panic or a defect in its log.
func startBenchManager(t *testing.T, env *framework.Environment, settings opconfig.Config, opts ...framework.ManagerOption) (*framework.Manager, func()) {
	registerMetrics.Do(func() {
		if err := controllers.RegisterMetrics(metrics.Registry); err != nil {
			t.Fatal(err)
		}
	})
	opts = append(opts, framework.JSONLog())
	if path := os.Getenv("OME_BENCH_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		opts = append(opts, framework.WithLog(f))
	}
	m, err := env.StartManager(settings, opts...)
	if err != nil {
		t.Fatal(err)
	}
	logf.SetLogger(m.Logger)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if err := m.Stop(); err != nil {
				t.Errorf("manager: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return m, stop
}
