package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/pkg/version"
)

// freeAddr is a loopback address with a port nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startMetricsManager runs the manager's own manager (newManager) against an envtest API
// server with the given metrics setting, and returns the cluster and the metrics address.
func startMetricsManager(t *testing.T, secure bool) (*envfleet.Cluster, string) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: this test needs an API server; make test sets it")
	}
	c, err := envfleet.StartCluster("metrics")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	addr := freeAddr(t)
	mgr, err := newManager(c.Config, &options{metricsAddr: addr, probeAddr: "0", secureMetrics: secure, operatorNamespace: "ome"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return c, addr
}

// scrape GETs /metrics and returns the status and body; the certificate is the manager's
// self-signed one, so it is not verified.
func scrape(t *testing.T, url, token string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the manager's self-signed certificate
	}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}

// until retries check until it returns nil; it guards the manager's start, not a timing claim.
func until(t *testing.T, what string, check func() error) {
	t.Helper()
	// A minute: the metrics filter keeps a denial for 30 s (controller-runtime's
	// DenyCacheTTL), so a reader granted its role just after a denial waits that long.
	err := poll.Until(context.Background(), 100*time.Millisecond, time.Minute, func(context.Context) error { return check() })
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

type statusErr struct{ got, want int }

func (e statusErr) Error() string {
	return http.StatusText(e.got) + ", want " + http.StatusText(e.want)
}

func wantStatus(t *testing.T, url, token string, want int) func() error {
	return func() error {
		got, _, err := scrape(t, url, token)
		if err != nil {
			return err
		}
		if got != want {
			return statusErr{got, want}
		}
		return nil
	}
}

// By default metrics need HTTPS, a token the API server accepts, and the right to get
// /metrics; the manager's own ClusterRole rules let it ask the API server.
func TestMetricsSecureByDefault(t *testing.T) {
	o, err := parseOptions(newFlagSet(), nil)
	if err != nil || !o.secureMetrics {
		t.Fatalf("--metrics-secure defaults to %v (%v), want true", o.secureMetrics, err)
	}
	c, addr := startMetricsManager(t, true)
	url := "https://" + addr + "/metrics"
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(c.Config)

	until(t, "no token is refused", wantStatus(t, url, "", http.StatusUnauthorized))
	// controller-runtime's filter answers a token that the TokenReview rejects with an
	// error of its own (500); either way, no metrics.
	if code, body, err := scrape(t, url, "not-a-token"); err != nil || code == http.StatusOK || strings.Contains(body, "controller_runtime_") {
		t.Fatalf("a bad token got %d (%v)", code, err)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus", Namespace: ns.Name}}
	if _, err := cs.CoreV1().ServiceAccounts(ns.Name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns.Name).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	token := tr.Status.Token
	until(t, "a valid token without the reader role is forbidden", wantStatus(t, url, token, http.StatusForbidden))

	// The chart's ome-metrics-reader rule, bound to the scraper.
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "ome-metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-metrics"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns.Name}}}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	until(t, "the reader gets the metrics", func() error {
		if err := wantStatus(t, url, token, http.StatusOK)(); err != nil {
			return err
		}
		_, body, _ := scrape(t, url, token)
		if !strings.Contains(body, "controller_runtime_") {
			return statusErr{0, http.StatusOK}
		}
		return nil
	})

	// Plain HTTP gets no metrics.
	resp, err := http.Get("http://" + addr + "/metrics")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "controller_runtime_") {
			t.Fatal("metrics served over plain HTTP")
		}
	}
}

// --metrics-secure=false serves plain HTTP to anyone.
func TestMetricsPlainWhenAsked(t *testing.T) {
	o, err := parseOptions(newFlagSet(), []string{"--metrics-secure=false"})
	if err != nil || o.secureMetrics {
		t.Fatalf("--metrics-secure=false gives %v (%v)", o.secureMetrics, err)
	}
	_, addr := startMetricsManager(t, false)
	var body []byte
	until(t, "plain metrics", func() error {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return statusErr{resp.StatusCode, http.StatusOK}
		}
		body, err = io.ReadAll(resp.Body)
		return err
	})
	// Every manager says which build it is, whatever its role.
	info := version.Get()
	want := fmt.Sprintf("ome_build_info{goversion=%q,revision=%q,version=%q} 1\n", info.GoVersion, info.Revision, info.Version)
	if !strings.Contains(string(body), want) {
		t.Errorf("metrics lack %q:\n%s", want, body)
	}
}

func newFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
