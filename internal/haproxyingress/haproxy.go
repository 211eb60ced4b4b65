package haproxyingress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/proc"
)

// HAProxy Ingress is the data plane of the suites and the demo that send requests: a
// Gateway API controller (github.com/jcmoraisjr/haproxy-ingress, pinned in
// hack/haproxy-ingress) that writes the configuration of a real haproxy from the
// HTTPRoutes it reads.
const (
	// HAProxyIngressEnv names the controller's binary; make sets it to the one it built.
	HAProxyIngressEnv = "HAPROXY_INGRESS"
	// RequireDataPlaneEnv, when set (.ci/run sets it), turns a data plane that cannot run
	// here into a failure instead of a skip.
	RequireDataPlaneEnv = "OME_REQUIRE_DATAPLANE"
	// HAProxyController is the controllerName of HAProxy Ingress's GatewayClasses.
	HAProxyController = "haproxy-ingress.github.io/controller"
	haproxyModule     = "github.com/jcmoraisjr/haproxy-ingress"
)

// DataPlaneMissing says why HAProxy Ingress cannot run on this machine, or nil when it can:
// its binary (make builds it), Debian's haproxy with Lua's json module (make installs them
// with apt-get), and a private mount namespace, in which the controller gets an /etc/hosts
// of its own (that needs root).
func DataPlaneMissing() error {
	bin := os.Getenv(HAProxyIngressEnv)
	if bin == "" {
		return fmt.Errorf("%s is not set (make test builds bin/haproxy-ingress-<version> and sets it)", HAProxyIngressEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %w", HAProxyIngressEnv, err)
	}
	if _, err := exec.LookPath("haproxy"); err != nil {
		return errors.New("no haproxy on PATH: `make haproxy` installs Debian's haproxy and lua-json with apt-get (as root)")
	}
	dir, err := os.MkdirTemp("", "haproxy-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := luaJSONLoads(dir); err != nil {
		return err
	}
	return privateHostsWork(dir)
}

// luaJSONLoads checks that haproxy's Lua finds the json module, which HAProxy Ingress's
// Lua scripts require. haproxy -c exits 2 for a valid configuration without listeners, 1
// when loading the script fails.
func luaJSONLoads(dir string) error {
	script, cfg := filepath.Join(dir, "json.lua"), filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(script, []byte(`require("json")`+"\n"), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(cfg, []byte("global\n    lua-load "+script+"\n"), 0o600); err != nil {
		return err
	}
	out, err := exec.Command("haproxy", "-c", "-f", cfg).CombinedOutput()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 2) {
		return fmt.Errorf("haproxy cannot load Lua's json module (Debian's lua-json; `make haproxy` installs it): %w\n%s", err, out)
	}
	return nil
}

// privateHostsWork checks that a process can get its own /etc/hosts, as the controller
// does, without touching the machine's.
func privateHostsWork(dir string) error {
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
		return err
	}
	out, err := withHosts(hosts, "true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot give HAProxy Ingress a private /etc/hosts (unshare -m and a bind mount, which need root): %w\n%s", err, out)
	}
	return nil
}

// withHosts runs a command in a mount namespace of its own in which hostsFile is mounted
// over /etc/hosts: the names there resolve for the command only. unshare makes the
// namespace's mounts private, so the machine's /etc/hosts is never changed.
func withHosts(hostsFile string, name string, args ...string) *exec.Cmd {
	script := `mount --bind "$0" /etc/hosts && exec "$@"`
	return exec.Command("unshare", append([]string{"--mount", "--", "/bin/sh", "-c", script, hostsFile, name}, args...)...)
}

// HAProxyOptions say how to start HAProxy Ingress.
type HAProxyOptions struct {
	// Namespace holds the controller's ConfigMap; it is created if missing.
	Namespace string
	// Hosts are names the controller resolves to these addresses (loopback): the hosts
	// of the ExternalName Services the publisher writes.
	Hosts map[string]string
	// Log receives the controller's and haproxy's output.
	Log io.Writer
}

// HAProxyIngress is a running HAProxy Ingress and its haproxy, listening on loopback.
type HAProxyIngress struct {
	// HTTPAddr is where haproxy serves HTTP, host:port on 127.0.0.1.
	HTTPAddr string
	// MetricsAddr is where haproxy's own Prometheus exporter serves /metrics, host:port on
	// 127.0.0.1 (HAProxy Ingress's prometheus-port): the gateway's counters per backend
	// and server, which the traffic signal's queries read.
	MetricsAddr string
	proc        *proc.Process
	dir         string
	log         io.Writer
}

// haproxyStopTimeout is how long the controller may take to stop itself and haproxy
// after SIGTERM (2-3 s when measured) before the process group is killed.
const haproxyStopTimeout = 10 * time.Second

// StartHAProxyIngress starts HAProxy Ingress against the cluster, with every listener of it
// and of its haproxy on 127.0.0.1, and waits until haproxy answers HTTP. Call Stop.
func StartHAProxyIngress(ctx context.Context, c *envfleet.Cluster, opts HAProxyOptions) (*HAProxyIngress, error) {
	bin := os.Getenv(HAProxyIngressEnv)
	mod, err := envfleet.ModuleDir("hack/haproxy-ingress", haproxyModule)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "haproxy-ingress-")
	if err != nil {
		return nil, err
	}
	h := &HAProxyIngress{dir: dir}
	if err := h.prepare(ctx, c, mod, opts); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	healthz, err := proc.FreePort()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cmd := withHosts(filepath.Join(dir, "hosts"), bin,
		"--kubeconfig="+filepath.Join(dir, "kubeconfig"),
		"--local-filesystem-prefix="+filepath.Join(dir, "prefix"),
		"--master-worker",
		"--update-status=false",
		"--configmap="+opts.Namespace+"/haproxy-ingress",
		fmt.Sprintf("--healthz-port=%d", healthz),
		"--disable-pod-list",
		"--disable-node-list",
		"--watch-gateway",
		"--acme-server=false",
		"--profiling=false",
		// The default is 200ms: a changed route would wait that long before haproxy's
		// configuration is written, for nothing in a test.
		"--wait-before-update=0s",
	)
	// The controller reads its templates from ./rootfs under its working folder.
	cmd.Dir = dir
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	h.log = log
	// A group of its own, so that Stop can reach haproxy too if the controller dies first.
	h.proc, err = proc.Start(cmd, proc.Options{Name: "HAProxy Ingress", Log: log, Group: true,
		StopTimeout: haproxyStopTimeout, BeforeKill: quitFirst})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := h.waitServing(ctx); err != nil {
		_ = h.Stop()
		return nil, err
	}
	return h, nil
}

// prepare writes the controller's files (templates, Lua scripts, hosts, kubeconfig) and
// creates its ConfigMap, choosing free loopback ports for haproxy's listeners.
func (h *HAProxyIngress) prepare(ctx context.Context, c *envfleet.Cluster, mod string, opts HAProxyOptions) error {
	prefix := filepath.Join(h.dir, "prefix")
	for _, d := range []string{"etc/haproxy/lua", "etc/haproxy/maps", "etc/haproxy/errorfiles", "var/run/haproxy", "var/lib/haproxy/crt"} {
		if err := os.MkdirAll(filepath.Join(prefix, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.CopyFS(filepath.Join(h.dir, "rootfs", "etc", "templates"), os.DirFS(filepath.Join(mod, "rootfs", "etc", "templates"))); err != nil {
		return fmt.Errorf("copy HAProxy Ingress's templates: %w", err)
	}
	if err := os.CopyFS(filepath.Join(prefix, "etc", "haproxy", "lua"), os.DirFS(filepath.Join(mod, "rootfs", "etc", "lua"))); err != nil {
		return fmt.Errorf("copy HAProxy Ingress's Lua scripts: %w", err)
	}
	if err := writeHosts(filepath.Join(h.dir, "hosts"), opts.Hosts); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(h.dir, "kubeconfig"), c.KubeConfig, 0o600); err != nil {
		return err
	}
	ports := make([]int, 5)
	for i := range ports {
		p, err := proc.FreePort()
		if err != nil {
			return err
		}
		ports[i] = p
	}
	h.HTTPAddr = fmt.Sprintf("127.0.0.1:%d", ports[0])
	h.MetricsAddr = fmt.Sprintf("127.0.0.1:%d", ports[4])
	if err := client.IgnoreAlreadyExists(c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opts.Namespace}})); err != nil {
		return err
	}
	return c.Client.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "haproxy-ingress", Namespace: opts.Namespace},
		Data: map[string]string{
			"bind-http":               h.HTTPAddr,
			"bind-https":              fmt.Sprintf("127.0.0.1:%d", ports[1]),
			"healthz-port":            fmt.Sprint(ports[2]),
			"stats-port":              fmt.Sprint(ports[3]),
			"prometheus-port":         fmt.Sprint(ports[4]),
			"bind-ip-addr-healthz":    "127.0.0.1",
			"bind-ip-addr-stats":      "127.0.0.1",
			"bind-ip-addr-prometheus": "127.0.0.1",
			"bind-ip-addr-tcp":        "127.0.0.1",
			"syslog-endpoint":         "stdout",
			"syslog-format":           "raw",
		},
	})
}

// writeHosts writes the machine's /etc/hosts with the given names added.
func writeHosts(path string, hosts map[string]string) error {
	base, err := os.ReadFile("/etc/hosts")
	if err != nil {
		return err
	}
	var b strings.Builder
	b.Write(base)
	b.WriteString("\n# Added for HAProxy Ingress by internal/haproxyingress.\n")
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		fmt.Fprintf(&b, "%s %s\n", hosts[name], name)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// waitServing waits until haproxy answers HTTP on HTTPAddr (its own 404 for an unknown
// host will do), or the controller exits.
func (h *HAProxyIngress) waitServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	hc := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+h.HTTPAddr+"/", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			_ = resp.Body.Close()
			return nil
		}
		select {
		case <-h.proc.Done():
			return fmt.Errorf("HAProxy Ingress exited before haproxy served on %s (see its log)", h.HTTPAddr)
		case <-ctx.Done():
			return fmt.Errorf("haproxy did not answer on %s: %w", h.HTTPAddr, ctx.Err())
		case <-tick.C:
		}
	}
}

// Config is the haproxy.cfg HAProxy Ingress last wrote: the backends and servers it made
// of the routes, whose names the exporter's series carry.
func (h *HAProxyIngress) Config() ([]byte, error) {
	return os.ReadFile(filepath.Join(h.dir, "prefix", "etc", "haproxy", "haproxy.cfg"))
}

// PIDs are the controller's process and its children (haproxy's master and workers).
func (h *HAProxyIngress) PIDs() []int {
	if h == nil || h.proc == nil {
		return nil
	}
	return processGroup(h.proc.Pid())
}

// Pause stops the controller process with SIGSTOP and leaves haproxy running: haproxy
// keeps serving with the configuration it last loaded, whatever the routes say since, as
// it does when its controller hangs. Resume continues it.
func (h *HAProxyIngress) Pause() error {
	return h.proc.Signal(syscall.SIGSTOP)
}

// Resume continues a paused controller, which then catches up with the routes.
func (h *HAProxyIngress) Resume() error {
	return h.proc.Signal(syscall.SIGCONT)
}

// Stop stops the controller with SIGTERM, which stops haproxy too, and removes the
// controller's files. A SIGTERM that comes while v0.14.0 reloads haproxy stops haproxy's
// master and then waits forever for the new worker that master would have started (its
// goroutines show it waiting in waitWorker): past a timeout the process group is killed,
// which is not a failure of the test; the log says so.
func (h *HAProxyIngress) Stop() error {
	if h == nil || h.proc == nil {
		return nil
	}
	defer os.RemoveAll(h.dir)
	if err := h.proc.Stop(); err != nil {
		fmt.Fprintf(h.log, "haproxyingress: %v "+
			"(stopped during a reload, v0.14.0 waits for a haproxy worker that never comes; see the goroutines above)\n", err)
	}
	// haproxy's workers may outlive the controller by a moment; they are in its group.
	_ = h.proc.SignalGroup(syscall.SIGTERM)
	return nil
}

// quitFirst makes the Go controller print its goroutines to its log before it is killed:
// where it was stuck.
func quitFirst(p *proc.Process) {
	_ = p.Signal(syscall.SIGQUIT)
	select {
	case <-p.Done():
	case <-time.After(time.Second):
	}
}

// InstallHAProxyGateway creates a GatewayClass for HAProxy Ingress and a Gateway of it with
// one HTTP listener open to routes from every namespace. HAProxy Ingress ignores the
// listener's port: haproxy listens where its ConfigMap says.
func InstallHAProxyGateway(ctx context.Context, c client.Client, className, namespace, name string) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: className},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: HAProxyController}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(className), Listeners: []gatewayv1.Listener{{
				Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80,
				AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)}},
			}}}},
	}
	for _, obj := range objs {
		if err := client.IgnoreAlreadyExists(c.Create(ctx, obj)); err != nil {
			return fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return nil
}
