package monitoring

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
)

const dashboardKey = "ome-routing.json"

var _ = Describe("The chart's alerts and dashboard", func() {
	It("parse with Prometheus's parser and name only metrics that a running manager exports", func(ctx context.Context) {
		// Put the manager through what the alerts watch: a probed service, a failing
		// cluster and a gate, so that every labelled series has appeared.
		key := client.ObjectKey{Namespace: "monitored", Name: "qwen3-0-6b"}
		Expect(controlPlane().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}})).To(Succeed())
		Expect(endpoint.Set(modelserver.Unavailable)).To(Succeed())
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-a"].Client, key, endpoint.URL(), 1, 1)).To(Succeed())
		Expect(controlPlane().Create(ctx, envfleet.SourceService(key, []string{"worker-a"}, nil))).To(Succeed())
		Eventually(func(g Gomega) {
			tm := &omev1beta1.TrafficMap{}
			g.Expect(controlPlane().Get(ctx, key, tm)).To(Succeed())
			g.Expect(tm.Spec.Entries).To(HaveLen(1))
			g.Expect(tm.Spec.Entries[0].Probe).NotTo(BeNil())
			g.Expect(tm.Spec.Entries[0].Probe.Gated).To(BeTrue())
		}).WithContext(ctx).WithTimeout(timeout).WithPolling(interval).Should(Succeed(), "manager log:\n%s", managerLog.Contents())

		exprs := chartExpressions(ctx)
		Expect(len(exprs)).To(BeNumerically(">=", 10), "the rule's alerts and the dashboard's targets")
		var used []string
		for _, r := range parsePromQL(ctx, exprs) {
			Expect(r.Error).To(BeEmpty(), "PromQL %q", r.Expr)
			Expect(r.Metrics).NotTo(BeEmpty(), "PromQL %q selects no metric", r.Expr)
			Expect(r.Metrics).NotTo(ContainElement(""), "PromQL %q selects series without naming a metric", r.Expr)
			used = append(used, r.Metrics...)
		}
		Eventually(func(g Gomega) {
			exp := exported(ctx, g)
			for _, name := range used {
				g.Expect(exp).To(HaveKey(name), "the chart uses %s; the manager exports %v", name, keys(exp))
			}
		}).WithContext(ctx).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})
})

// chartExpressions renders the chart with every monitoring object on and returns each PromQL
// expression in the PrometheusRule and in the dashboard's panels.
func chartExpressions(ctx context.Context) []string {
	GinkgoHelper()
	out := run(ctx, nil, os.Getenv("HELM"), "template", "ome", filepath.Join(envfleet.RepoRoot(), "charts", "ome-resources"),
		"--namespace", "ome",
		"--set", "monitoring.serviceMonitor.enabled=true",
		"--set", "monitoring.prometheusRule.enabled=true",
		"--set", "monitoring.dashboard.enabled=true")
	var exprs []string
	var sawRule, sawDashboard, sawMonitor bool
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		Expect(err).NotTo(HaveOccurred())
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal(doc, &obj.Object)).To(Succeed())
		switch {
		case obj.GetKind() == "ServiceMonitor":
			sawMonitor = true
		case obj.GetKind() == "PrometheusRule":
			sawRule = true
			exprs = append(exprs, ruleExpressions(obj)...)
		case obj.GetKind() == "ConfigMap" && strings.HasSuffix(obj.GetName(), "-dashboard"):
			sawDashboard = true
			data, _, err := unstructured.NestedString(obj.Object, "data", dashboardKey)
			Expect(err).NotTo(HaveOccurred())
			exprs = append(exprs, dashboardExpressions(data)...)
		}
	}
	Expect([]bool{sawMonitor, sawRule, sawDashboard}).To(Equal([]bool{true, true, true}),
		"ServiceMonitor, PrometheusRule and dashboard ConfigMap rendered")
	return exprs
}

// ruleExpressions are the alerts' expressions; each alert must also say how long it waits
// and how severe it is, and carry a summary.
func ruleExpressions(rule *unstructured.Unstructured) []string {
	GinkgoHelper()
	var spec struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	raw, err := json.Marshal(rule.Object["spec"])
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, &spec)).To(Succeed())
	var exprs []string
	for _, g := range spec.Groups {
		for _, r := range g.Rules {
			Expect(r.Alert).NotTo(BeEmpty())
			Expect(r.For).NotTo(BeEmpty(), "alert %s fires on the first bad sample", r.Alert)
			_, err := model.ParseDuration(r.For)
			Expect(err).NotTo(HaveOccurred(), "alert %s: for", r.Alert)
			Expect(r.Labels).To(HaveKeyWithValue("severity", BeElementOf("warning", "critical")), "alert %s", r.Alert)
			Expect(r.Annotations).To(HaveKeyWithValue("summary", Not(BeEmpty())), "alert %s", r.Alert)
			exprs = append(exprs, r.Expr)
		}
	}
	return exprs
}

// dashboardExpressions are the targets' expressions of every panel, rows included.
func dashboardExpressions(data string) []string {
	GinkgoHelper()
	type panel struct {
		Title   string  `json:"title"`
		Panels  []panel `json:"panels"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	}
	var dash struct {
		UID    string  `json:"uid"`
		Panels []panel `json:"panels"`
	}
	Expect(json.Unmarshal([]byte(data), &dash)).To(Succeed(), "the dashboard is not JSON")
	Expect(dash.UID).NotTo(BeEmpty())
	var exprs []string
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			for _, t := range p.Targets {
				Expect(t.Expr).NotTo(BeEmpty(), "panel %q has a target without an expression", p.Title)
				exprs = append(exprs, t.Expr)
			}
		}
	}
	walk(dash.Panels)
	return exprs
}

type parsed struct {
	Expr    string   `json:"expr"`
	Metrics []string `json:"metrics"`
	Error   string   `json:"error"`
}

// parsePromQL parses the expressions with Prometheus's parser (hack/promql, in $PROMQL).
func parsePromQL(ctx context.Context, exprs []string) []parsed {
	GinkgoHelper()
	in, err := json.Marshal(exprs)
	Expect(err).NotTo(HaveOccurred())
	var out []parsed
	Expect(json.Unmarshal([]byte(run(ctx, in, os.Getenv("PROMQL"))), &out)).To(Succeed())
	Expect(out).To(HaveLen(len(exprs)))
	return out
}

// exported are the metric names that the running manager's /metrics serves, with the
// _bucket, _sum and _count series of its histograms and summaries.
func exported(ctx context.Context, g Gomega) map[string]bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	g.Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := http.DefaultClient.Do(req)
	g.Expect(err).NotTo(HaveOccurred(), "manager log:\n%s", managerLog.Contents())
	defer resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	names := map[string]bool{}
	for name, f := range families {
		if len(f.GetMetric()) == 0 {
			continue
		}
		names[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_SUMMARY:
			names[name+"_sum"], names[name+"_count"] = true, true
			if f.GetType() == dto.MetricType_HISTOGRAM {
				names[name+"_bucket"] = true
			}
		}
	}
	return names
}

// keys are the names in m, sorted, for a failure message.
func keys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

// run runs a command with stdin and returns its stdout, failing the spec if it fails.
func run(ctx context.Context, stdin []byte, name string, args ...string) string {
	GinkgoHelper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	Expect(cmd.Run()).To(Succeed(), "%s %v\nstderr: %s", name, args, stderr.String())
	return stdout.String()
}
