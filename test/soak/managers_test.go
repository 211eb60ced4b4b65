package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/proc"
	"github.com/ome-routing/operator/test/framework"
)

// leaseName is the manager's leader-election Lease (cmd/manager).
const leaseName = "ome-routing-operator.ome.io"

// replica is one manager process, run from the binary `make build` builds, with the
// flags the chart gives it, leader election on, and metrics on a loopback port in plain
// HTTP for the sampler. A killed replica is started again under the same name, as a pod
// restarts in place.
type replica struct {
	name        string
	bin         string
	kubeconfig  string
	settings    string
	metricsAddr string
	logDir      string

	mu          sync.Mutex
	incarnation int
	proc        *proc.Process
	logs        []string
	// check reads every incarnation's log for panics and defects (test/framework).
	check *framework.LogCheck
}

// ident names the running incarnation, as "b2": each incarnation writes under a field
// manager of its own, so that the watcher tells a killed incarnation's last writes from
// its successor's.
func (r *replica) ident() string { return r.name + strconv.Itoa(r.incarnation) }

func (r *replica) fieldManager() string { return fieldManagerPrefix + r.ident() }

func (r *replica) args() []string {
	hosts := map[string]netip.Addr{}
	for _, w := range workers {
		hosts[w+".soak.test"] = netip.MustParseAddr("127.0.0.1")
	}
	return append(envfleet.ManagerArgs(r.settings, r.metricsAddr, hosts), "--leader-elect", "--field-manager="+r.fieldManager())
}

// start runs a new incarnation of the replica, its log in its own file.
func (r *replica) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.incarnation++
	path := filepath.Join(r.logDir, fmt.Sprintf("manager-%s-%d.log", r.name, r.incarnation))
	cmd := exec.Command(r.bin, r.args()...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+r.kubeconfig)
	if r.check == nil {
		r.check = framework.NewLogCheck()
	}
	// Should this process die without its clean-up, the kernel stops the managers too.
	p, err := proc.Start(cmd, proc.Options{Name: "manager " + r.name, LogFile: path, Log: r.check, DieWithParent: true})
	if err != nil {
		return err
	}
	r.proc = p
	r.logs = append(r.logs, path)
	return nil
}

// pid is the running incarnation's process id, 0 when none runs.
func (r *replica) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil || r.proc.Exited() {
		return 0
	}
	return r.proc.Pid()
}

// kill sends SIGKILL, waits for the process to be gone, and returns the incarnation it
// killed and when the signal went.
func (r *replica) kill() (string, time.Time) {
	r.mu.Lock()
	p, ident := r.proc, r.ident()
	r.mu.Unlock()
	at := time.Now()
	p.Kill()
	return ident, at
}

// stop ends the replica as the kubelet does, SIGTERM and then SIGKILL.
func (r *replica) stop() {
	r.mu.Lock()
	p := r.proc
	r.mu.Unlock()
	if p != nil {
		_ = p.Stop()
	}
}

// sample is what one scrape of a replica found.
type sample struct {
	at          time.Time
	replica     string
	incarnation int
	leader      bool
	rssBytes    float64
	fds         float64
	goroutines  float64
	// queueDepth is the routing controller's workqueue depth.
	queueDepth float64
	// reconcileErrors is controller_runtime_reconcile_errors_total over every controller.
	reconcileErrors float64
	// requests counts the requests to the control plane, by method, since the start.
	requests map[string]float64
	// probeErrors counts the probes that ended in a transport error (a timeout among
	// them) since the start.
	probeErrors float64
}

// scrape reads the replica's /metrics and /proc. controlPlane is the host the replica
// reaches the control plane at, which its client metrics are labelled with.
func (r *replica) scrape(ctx context.Context, controlPlane string) (sample, error) {
	r.mu.Lock()
	s := sample{at: time.Now(), replica: r.name, incarnation: r.incarnation, requests: map[string]float64{}}
	pid := 0
	if r.proc != nil && !r.proc.Exited() {
		pid = r.proc.Pid()
	}
	r.mu.Unlock()
	if pid == 0 {
		return s, fmt.Errorf("manager %s is not running", r.name)
	}
	var err error
	if s.rssBytes, err = rss(pid); err != nil {
		return s, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = float64(len(fds))
	families, err := scrapeMetrics(ctx, "http://"+r.metricsAddr+"/metrics")
	if err != nil {
		return s, err
	}
	s.goroutines = gauge(families["go_goroutines"], nil)
	s.leader = gauge(families["leader_election_master_status"], map[string]string{"name": leaseName}) == 1
	s.queueDepth = gauge(families["workqueue_depth"], map[string]string{"name": "routing"})
	for _, m := range families["controller_runtime_reconcile_errors_total"].GetMetric() {
		s.reconcileErrors += m.GetCounter().GetValue()
	}
	for _, m := range families["ome_routing_observer_requests_total"].GetMetric() {
		if o := label(m, "outcome"); o == "TransportError" || o == "BodyError" {
			s.probeErrors += m.GetCounter().GetValue()
		}
	}
	for _, m := range families["rest_client_requests_total"].GetMetric() {
		if label(m, "host") == controlPlane {
			s.requests[label(m, "method")] += m.GetCounter().GetValue()
		}
	}
	return s, nil
}

func scrapeMetrics(ctx context.Context, u string) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// gauge is the value of the family's sample whose labels include want, or 0.
func gauge(f *dto.MetricFamily, want map[string]string) float64 {
	for _, m := range f.GetMetric() {
		ok := true
		for k, v := range want {
			if label(m, k) != v {
				ok = false
			}
		}
		if ok {
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// rss is a process's resident set size in bytes, from /proc.
func rss(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
}

// hostOf is the host:port of an https:// URL, as client-go's metrics label it.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Host
}

// reconcilerErrors counts the "Reconciler error" lines in the replica's logs, with the
// first few distinct messages.
func (r *replica) reconcilerErrors() (int, []string) {
	r.mu.Lock()
	logs := append([]string(nil), r.logs...)
	r.mu.Unlock()
	n := 0
	seen := map[string]bool{}
	var firsts []string
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.Contains(line, "Reconciler error") {
				continue
			}
			n++
			msg := errorText(line)
			if !seen[msg] && len(firsts) < 5 {
				seen[msg] = true
				firsts = append(firsts, msg)
			}
		}
		f.Close()
	}
	return n, firsts
}

// errorText is the controller and the start of the error of a "Reconciler error" line
// (the manager logs JSON lines).
func errorText(line string) string {
	var entry struct{ Controller, Error string }
	if err := json.Unmarshal([]byte(line), &entry); err != nil || entry.Error == "" {
		entry.Error = line
	}
	if len(entry.Error) > 160 {
		entry.Error = entry.Error[:160]
	}
	return entry.Controller + ": " + entry.Error
}
