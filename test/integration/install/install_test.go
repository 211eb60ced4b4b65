package install

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/probecases"
)

const (
	managerName   = "ome-controller-manager"
	configMapName = "inferenceservice-config"
	checksumKey   = "checksum/config"
	// badValueError is the schema's refusal of a probe without a timeout, as
	// docs/reference/settings.md quotes it.
	badValueError = "- at '/ome/multicluster/config/routing/probe': missing property 'timeout'"
)

// projectCRDs are the CRDs in the chart's crds/ folder.
var projectCRDs = []string{"inferenceservices.ome.io", "trafficmaps.ome.io", "workloadclusters.ome.io"}

var _ = Describe("helm install, upgrade and uninstall of the chart", Ordered, func() {
	var installed []*unstructured.Unstructured
	var firstChecksum string

	It("refuses a bad value with the schema before anything reaches the API server", func(ctx context.Context) {
		values := valuesFile(step1Values(map[string]any{"timeout": nil}))
		_, stderr, err := helm(ctx, "install", releaseName, chartDir(), "--namespace", releaseNamespace,
			"--create-namespace", "--values", values)
		Expect(err).To(HaveOccurred())
		Expect(stderr).To(ContainSubstring(badValueError))

		// Neither the namespace, nor any templated object, nor a release record.
		err = k8s.Get(ctx, client.ObjectKey{Name: releaseNamespace}, &corev1.Namespace{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace %s: %v", releaseNamespace, err)
		for _, list := range []client.ObjectList{&rbacv1.ClusterRoleList{}, &rbacv1.ClusterRoleBindingList{}} {
			Expect(k8s.List(ctx, list, client.MatchingLabels{"app.kubernetes.io/instance": releaseName})).To(Succeed())
			Expect(meta.LenList(list)).To(BeZero(), "%T", list)
		}
		Expect(mustHelm(ctx, "list", "--all-namespaces", "--all", "--short")).To(BeEmpty())
		// Helm 3 applies a chart's crds/ before it checks the values against the schema, so
		// the CRDs are there: harmless (install would put them there too, and uninstall
		// keeps them), and what docs/install.md tells users. Should helm ever check first,
		// this fails and docs/install.md changes.
		for _, name := range projectCRDs {
			Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed(), "CRD %s", name)
		}
	})

	It("installs with the guide's Step 1 values: the API server accepts every object", func(ctx context.Context) {
		out := mustHelm(ctx, "install", releaseName, chartDir(), "--namespace", releaseNamespace, "--create-namespace",
			"--values", valuesFile(step1Values(nil)))
		Expect(releaseStatus(ctx)).To(Equal(releaseInfo{Status: "deployed", Revision: 1}))
		// NOTES.txt: what to run next, for the values given.
		for _, next := range []string{
			"kubectl -n " + releaseNamespace + " rollout status deployment/" + managerName,
			"2. Routing is on.",
			"kubectl ome placement endpoint <inferenceservice> -n <namespace>",
			"kubectl ome cluster status",
			"ome.multicluster.config.routing.observer.allowPrivateNetworks=true",
			"Nothing is published yet",
			"helm upgrade --atomic",
		} {
			Expect(out).To(ContainSubstring(next))
		}

		for _, name := range projectCRDs {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed(), "CRD %s", name)
			Expect(crdEstablished(crd)).To(BeTrue(), "CRD %s is not Established", name)
		}
		installed = manifest(ctx)
		Expect(kinds(installed)).To(ContainElements("ServiceAccount", "ConfigMap", "ClusterRole", "ClusterRoleBinding",
			"Role", "RoleBinding", "Deployment"))
		expectStored(ctx, installed)

		var cm corev1.ConfigMap
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: releaseNamespace, Name: configMapName}, &cm)).To(Succeed())
		Expect(probeIn(cm)).To(HaveKeyWithValue("period", "10s"))
		firstChecksum = deployment(ctx).Spec.Template.Annotations[checksumKey]
		Expect(firstChecksum).To(HaveLen(64))
	})

	It("upgrades a changed probe and rolls the pods through the checksum annotation", func(ctx context.Context) {
		before := deployment(ctx)
		mustHelm(ctx, "upgrade", releaseName, chartDir(), "--namespace", releaseNamespace,
			"--values", valuesFile(step1Values(map[string]any{"period": "20s", "failureThreshold": 5})))
		Expect(releaseStatus(ctx)).To(Equal(releaseInfo{Status: "deployed", Revision: 2}))

		var cm corev1.ConfigMap
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: releaseNamespace, Name: configMapName}, &cm)).To(Succeed())
		Expect(probeIn(cm)).To(And(HaveKeyWithValue("period", "20s"), HaveKeyWithValue("failureThreshold", 5.0)))
		after := deployment(ctx)
		Expect(after.Spec.Template.Annotations[checksumKey]).To(And(HaveLen(64), Not(Equal(firstChecksum))))
		Expect(after.Generation).To(BeNumerically(">", before.Generation), "a new pod template, so a rollout")
	})

	It("refuses an upgrade the manager would refuse, with its words, and keeps the release as it was", func(ctx context.Context) {
		before := deployment(ctx)
		_, stderr, err := helm(ctx, "upgrade", releaseName, chartDir(), "--namespace", releaseNamespace,
			"--values", valuesFile(step1Values(map[string]any{"period": "20s", "timeout": "20s", "gateStatuses": []int{403, 500}})))
		Expect(err).To(HaveOccurred())
		Expect(stderr).To(ContainSubstring("the manager would refuse ome.multicluster.config and crash-loop:\n" +
			"invalid multi-cluster configuration: routing.probe.gateStatuses must not contain 403\n" +
			"invalid multi-cluster configuration: routing.probe.timeout (20s) must be shorter than routing.probe.period (20s)\n"))
		Expect(releaseStatus(ctx)).To(Equal(releaseInfo{Status: "deployed", Revision: 2}))
		Expect(deployment(ctx).Generation).To(Equal(before.Generation), "no new pods")
	})

	It("leaves the pods alone on an upgrade that changes nothing they read", func(ctx context.Context) {
		before := deployment(ctx)
		mustHelm(ctx, "upgrade", releaseName, chartDir(), "--namespace", releaseNamespace, "--reuse-values")
		Expect(releaseStatus(ctx)).To(Equal(releaseInfo{Status: "deployed", Revision: 3}))
		after := deployment(ctx)
		Expect(after.Spec.Template.Annotations[checksumKey]).To(Equal(before.Spec.Template.Annotations[checksumKey]))
		Expect(after.Generation).To(Equal(before.Generation))
	})

	It("uninstalls every object it installed and keeps the CRDs", func(ctx context.Context) {
		Expect(installed).NotTo(BeEmpty())
		mustHelm(ctx, "uninstall", releaseName, "--namespace", releaseNamespace, "--wait")
		for _, obj := range installed {
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(obj.GroupVersionKind())
			err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), live)
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s %s after uninstall: %v", obj.GetKind(), obj.GetName(), err)
		}
		// Helm never deletes a chart's crds/: deleting them would delete every
		// InferenceService and TrafficMap with them.
		for _, name := range projectCRDs {
			Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		}
		Expect(mustHelm(ctx, "list", "--all-namespaces", "--all", "--short")).To(BeEmpty())
	})

	It("installs the monitoring objects, which the Prometheus Operator's CRDs accept", func(ctx context.Context) {
		dir := os.Getenv("PROMETHEUS_OPERATOR_CRDS")
		if dir == "" {
			Skip("PROMETHEUS_OPERATOR_CRDS is not set: make test generates the Prometheus Operator's CRDs into bin/ and sets it")
		}
		_, err := envtest.InstallCRDs(restConfig, envtest.CRDInstallOptions{
			Paths: []string{
				filepath.Join(dir, "monitoring.coreos.com_servicemonitors.yaml"),
				filepath.Join(dir, "monitoring.coreos.com_prometheusrules.yaml"),
			},
			ErrorIfPathMissing: true,
		})
		Expect(err).NotTo(HaveOccurred())

		mustHelm(ctx, "install", releaseName, chartDir(), "--namespace", releaseNamespace, "--create-namespace",
			"--values", valuesFile(step1Values(nil)),
			"--set", "monitoring.serviceMonitor.enabled=true",
			"--set", "monitoring.prometheusRule.enabled=true",
			"--set", "monitoring.dashboard.enabled=true")
		objs := manifest(ctx)
		Expect(kinds(objs)).To(ContainElements("ServiceMonitor", "PrometheusRule", "Service", "ConfigMap"))
		expectStored(ctx, objs)
		mustHelm(ctx, "uninstall", releaseName, "--namespace", releaseNamespace, "--wait")
	})
})

// expectStored checks that the API server stored every rendered object with every field the
// chart set: a field that a schema does not know is pruned without an error, so a typo in a
// template would otherwise pass unnoticed.
func expectStored(ctx context.Context, objs []*unstructured.Unstructured) {
	GinkgoHelper()
	for _, obj := range objs {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(obj.GroupVersionKind())
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), live)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
		for _, field := range []string{"spec", "data", "rules", "roleRef", "subjects"} {
			if want, ok := obj.Object[field]; ok {
				Expect(missing(live.Object[field], want, field)).To(BeEmpty(),
					"%s %s: fields the chart sets that the API server did not store", obj.GetKind(), obj.GetName())
			}
		}
		for k, v := range obj.GetLabels() {
			Expect(live.GetLabels()).To(HaveKeyWithValue(k, v), "%s %s", obj.GetKind(), obj.GetName())
		}
	}
}

// missing lists the paths of values in want that got lacks or holds differently. got may
// hold more: the API server adds defaults.
func missing(got, want any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path}
		}
		var out []string
		for k, v := range w {
			out = append(out, missing(g[k], v, path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{path}
		}
		var out []string
		for i := range w {
			out = append(out, missing(g[i], w[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	default:
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return []string{fmt.Sprintf("%s: stored %v, rendered %v", path, got, want)}
		}
		return nil
	}
}

// step1Values is the values file of Step 1 in the routing health probes guide, with the
// probe fields in changes replaced (a nil value removes the field).
func step1Values(changes map[string]any) string {
	GinkgoHelper()
	probe := probecases.Step1()
	for k, v := range changes {
		if v == nil {
			delete(probe, k)
		} else {
			probe[k] = v
		}
	}
	values := map[string]any{"ome": map[string]any{"multicluster": map[string]any{
		"enabled": true,
		"role":    "control-plane",
		"config":  map[string]any{"routing": map[string]any{"enabled": true, "probe": probe}},
	}}}
	out, err := yaml.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}

// valuesFile writes values to a file for helm's --values.
func valuesFile(values string) string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "values.yaml")
	Expect(os.WriteFile(path, []byte(values), 0o600)).To(Succeed())
	return path
}

func chartDir() string {
	return filepath.Join(envfleet.RepoRoot(), "charts", "ome-resources")
}

type releaseInfo struct {
	Status   string
	Revision int
}

// releaseStatus is the release's status and revision as helm records them in the cluster.
func releaseStatus(ctx context.Context) releaseInfo {
	GinkgoHelper()
	var st struct {
		Version int `json:"version"`
		Info    struct {
			Status string `json:"status"`
		} `json:"info"`
	}
	Expect(json.Unmarshal([]byte(mustHelm(ctx, "status", releaseName, "--namespace", releaseNamespace, "-o", "json")), &st)).To(Succeed())
	return releaseInfo{Status: st.Info.Status, Revision: st.Version}
}

// manifest is every object of the release, as helm recorded it.
func manifest(ctx context.Context) []*unstructured.Unstructured {
	GinkgoHelper()
	out := mustHelm(ctx, "get", "manifest", releaseName, "--namespace", releaseNamespace)
	var objs []*unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		Expect(err).NotTo(HaveOccurred())
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal(doc, &obj.Object)).To(Succeed())
		if len(obj.Object) == 0 {
			continue // only comments
		}
		if obj.GetNamespace() == "" && isNamespaced(obj.GetKind()) {
			obj.SetNamespace(releaseNamespace)
		}
		objs = append(objs, obj)
	}
}

// isNamespaced says whether a kind the chart renders lives in a namespace.
func isNamespaced(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Namespace":
		return false
	}
	return true
}

func kinds(objs []*unstructured.Unstructured) []string {
	var k []string
	for _, o := range objs {
		k = append(k, o.GetKind())
	}
	return k
}

func deployment(ctx context.Context) *appsv1.Deployment {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: releaseNamespace, Name: managerName}, d)).To(Succeed())
	return d
}

// probeIn is the installation probe in the ConfigMap the manager reads.
func probeIn(cm corev1.ConfigMap) map[string]any {
	GinkgoHelper()
	var cfg struct {
		Routing struct {
			Probe map[string]any `json:"probe"`
		} `json:"routing"`
	}
	Expect(json.Unmarshal([]byte(cm.Data["multicluster"]), &cfg)).To(Succeed())
	return cfg.Routing.Probe
}

func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
