package chart

import (
	"path"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestLint(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	for name, values := range map[string]string{"defaults": "", "step 1 values": step1Values} {
		t.Run(name, func(t *testing.T) {
			args := []string{"lint", chartDir(t), "--strict", "--namespace", releaseNamespace}
			if values != "" {
				args = append(args, "--values", valuesFile(t, values))
			}
			stdout, stderr, err := runHelm(t, args...)
			if err != nil {
				t.Fatalf("helm lint: %v\n%s%s", err, stdout, stderr)
			}
			if !strings.Contains(stdout, "0 chart(s) failed") {
				t.Errorf("helm lint output lacks %q:\n%s", "0 chart(s) failed", stdout)
			}
		})
	}
}

func TestStep1Values(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	out := render(t, step1Values)
	d := out.deployment(t)

	if d.Namespace != releaseNamespace {
		t.Errorf("Deployment namespace = %q, want %q", d.Namespace, releaseNamespace)
	}
	// kubectl logs -l control-plane=ome-controller-manager selects pods, so the label must be
	// on the pod template, and the Deployment must select pods that carry it.
	podLabels := labels.Set(d.Spec.Template.Labels)
	if !labels.SelectorFromSet(labels.Set{"control-plane": managerName}).Matches(podLabels) {
		t.Errorf("pod template labels %v lack control-plane=%s", podLabels, managerName)
	}
	if d.Labels["control-plane"] != managerName {
		t.Errorf("Deployment labels %v lack control-plane=%s", d.Labels, managerName)
	}
	if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(podLabels) {
		t.Errorf("selector %v does not match the pod template labels %v", d.Spec.Selector.MatchLabels, podLabels)
	}

	c := manager(t, d)
	configPath := mountedConfigPath(t, d, c)
	for _, want := range []string{
		"--multicluster-config=" + configPath,
		"--enable-multicluster",
		"--multicluster-role=control-plane",
		"--leader-elect",
		"--leader-elect-lease-duration=15s",
		"--leader-elect-renew-deadline=10s",
		"--leader-elect-retry-period=2s",
		"--metrics-bind-address=:8080",
		"--health-probe-bind-address=:8081",
	} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("manager args %q lack %q", c.Args, want)
		}
	}
	checkHealthProbes(t, c)

	var sa corev1.ServiceAccount
	out.object(t, "ServiceAccount", d.Spec.Template.Spec.ServiceAccountName, &sa)

	// The ConfigMap key holds the probe as the values wrote it; config_test.go loads it.
	if data := out.multiclusterJSON(t); !strings.Contains(data, `"path":"/v1/models"`) {
		t.Errorf("ConfigMap key %s lacks the probe's path: %s", configKey, data)
	}
}

func TestDefaultsLeaveMulticlusterOff(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	c := manager(t, render(t, "").deployment(t))
	for _, arg := range c.Args {
		if strings.HasPrefix(arg, "--enable-multicluster") || strings.HasPrefix(arg, "--multicluster-role") {
			t.Errorf("default manager args %q include %q", c.Args, arg)
		}
	}
	if !slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--multicluster-config=") }) {
		t.Errorf("default manager args %q lack --multicluster-config", c.Args)
	}
}

func TestLeaderElection(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	cases := []struct {
		name  string
		flags []string
		want  bool
	}{
		{"on by default", nil, true},
		{"off with one replica", []string{"--set", "leaderElection.enabled=false"}, false},
		{"forced by two replicas", []string{"--set", "leaderElection.enabled=false", "--set", "replicas=2"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, "", tc.flags...)
			if got := slices.Contains(manager(t, out.deployment(t)).Args, "--leader-elect"); got != tc.want {
				t.Errorf("--leader-elect passed = %v, want %v", got, tc.want)
			}
			_, hasRole := out[key("Role", "ome-leader-election-role")]
			_, hasBinding := out[key("RoleBinding", "ome-leader-election-rolebinding")]
			if hasRole != tc.want || hasBinding != tc.want {
				t.Fatalf("leader-election Role rendered = %v, RoleBinding = %v, want %v", hasRole, hasBinding, tc.want)
			}
			if !tc.want {
				return
			}
			var role rbacv1.Role
			out.object(t, "Role", "ome-leader-election-role", &role)
			if !grants(role.Rules, "coordination.k8s.io", "leases", "create", "get", "update") ||
				!grants(role.Rules, "", "events", "create", "patch") {
				t.Errorf("leader-election Role rules %+v do not cover leases and events", role.Rules)
			}
		})
	}
}

// The Lease's timing reaches the manager's flags, and timings the manager would refuse
// are refused by the chart in the manager's words.
func TestLeaseTiming(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	args := manager(t, render(t, "", "--set", "leaderElection.leaseDuration=30s", "--set", "leaderElection.renewDeadline=20s",
		"--set", "leaderElection.retryPeriod=4s").deployment(t)).Args
	for _, want := range []string{"--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=4s"} {
		if !slices.Contains(args, want) {
			t.Errorf("manager args %q lack %q", args, want)
		}
	}
	if out := renderError(t, "", "--set", "leaderElection.retryPeriod=0s"); !strings.Contains(out, "- at '/leaderElection/retryPeriod': '0s' does not match pattern") {
		t.Errorf("a zero retry period passed the schema:\n%s", out)
	}
	if args := manager(t, render(t, "", "--set", "leaderElection.enabled=false").deployment(t)).Args; slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--leader-elect")
	}) {
		t.Errorf("leader election off, yet %q", args)
	}
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{[]string{"leaderElection.leaseDuration=10s"}, "--leader-elect-lease-duration (10s) must be longer than --leader-elect-renew-deadline (10s)"},
		{[]string{"leaderElection.renewDeadline=2s"}, "--leader-elect-renew-deadline (2s) must be longer than 1.2 times --leader-elect-retry-period (2s)"},
		// The schema refuses a zero duration first; without the schema, the template does.
		{[]string{"leaderElection.retryPeriod=0.0s"}, "--leader-elect-retry-period must be positive, got 0.0s"},
	} {
		flags := []string{"--skip-schema-validation"}
		for _, s := range tc.set {
			flags = append(flags, "--set", s)
		}
		if out := renderError(t, "", flags...); !strings.Contains(out, "the manager would refuse leaderElection and crash-loop:\n"+tc.want) {
			t.Errorf("%v: helm template error:\n%s\nwant it to contain %q", tc.set, out, tc.want)
		}
	}
}

func TestConfigChecksumRollsPods(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	checksum := func(values string) string {
		t.Helper()
		sum := render(t, values).deployment(t).Spec.Template.Annotations["checksum/config"]
		if sum == "" {
			t.Fatal("the pod template has no checksum/config annotation")
		}
		return sum
	}
	base := checksum(step1Values)
	if again := checksum(step1Values); again != base {
		t.Errorf("the same values give checksums %s and %s", base, again)
	}
	if changed := checksum(edit(t, step1Values, "period: 10s", "period: 20s")); changed == base {
		t.Error("a changed probe period leaves the checksum as it was, so the pods would not roll")
	}
}

func TestRoutingNeedsTopology(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	cases := map[string]string{
		"multicluster off": edit(t, step1Values, "enabled: true\n    role", "enabled: false\n    role"),
		"no role":          edit(t, step1Values, "role: control-plane", `role: ""`),
		"neither":          "ome:\n  multicluster:\n    config:\n      routing:\n        enabled: true\n",
	}
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			stderr := renderError(t, values)
			if !strings.Contains(stderr, "execution error at") || !strings.Contains(stderr, ": "+topologyError+"\n") {
				t.Errorf("helm template error lacks %q:\n%s", topologyError, stderr)
			}
		})
	}
}

// manager returns the Deployment's manager container.
func manager(t *testing.T, d *appsv1.Deployment) *corev1.Container {
	t.Helper()
	for i := range d.Spec.Template.Spec.Containers {
		if c := &d.Spec.Template.Spec.Containers[i]; c.Name == "manager" {
			return c
		}
	}
	t.Fatalf("Deployment %s has no manager container", d.Name)
	return nil
}

// mountedConfigPath follows the ConfigMap's multicluster key through the pod's volumes and
// the container's mounts to the file that the manager can open.
func mountedConfigPath(t *testing.T, d *appsv1.Deployment, c *corev1.Container) string {
	t.Helper()
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.ConfigMap == nil || v.ConfigMap.Name != configMapName {
			continue
		}
		file := configKey // a ConfigMap volume without items names each file after its key
		if len(v.ConfigMap.Items) > 0 {
			i := slices.IndexFunc(v.ConfigMap.Items, func(it corev1.KeyToPath) bool { return it.Key == configKey })
			if i < 0 {
				t.Fatalf("volume %s leaves out the %s key: %+v", v.Name, configKey, v.ConfigMap.Items)
			}
			file = v.ConfigMap.Items[i].Path
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name {
				if m.SubPath != "" {
					t.Errorf("mount %s uses subPath, which would keep the file from being updated", m.Name)
				}
				return path.Join(m.MountPath, file)
			}
		}
		t.Fatalf("the manager container does not mount volume %s", v.Name)
	}
	t.Fatalf("the pod has no volume from ConfigMap %s", configMapName)
	return ""
}

func checkHealthProbes(t *testing.T, c *corev1.Container) {
	t.Helper()
	healthPort := int32(0)
	for _, p := range c.Ports {
		if p.Name == "health" {
			healthPort = p.ContainerPort
		}
	}
	if healthPort != 8081 {
		t.Errorf("health container port = %d, want 8081", healthPort)
	}
	for _, probe := range []struct {
		name string
		got  *corev1.Probe
		path string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		switch {
		case probe.got == nil || probe.got.HTTPGet == nil:
			t.Errorf("%s probe is not an HTTP GET: %+v", probe.name, probe.got)
		case probe.got.HTTPGet.Path != probe.path || probe.got.HTTPGet.Port.String() != "health":
			t.Errorf("%s probe gets %s on port %s, want %s on health", probe.name,
				probe.got.HTTPGet.Path, probe.got.HTTPGet.Port.String(), probe.path)
		}
	}
}

// grants reports whether one of rules allows every verb on resource in group.
func grants(rules []rbacv1.PolicyRule, group, resource string, verbs ...string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		if !slices.Contains(r.APIGroups, group) || !slices.Contains(r.Resources, resource) {
			return false
		}
		for _, v := range verbs {
			if !slices.Contains(r.Verbs, v) {
				return false
			}
		}
		return true
	})
}

// helm install applies the chart's crds/ before the templates; --include-crds shows them.
func TestCRDsInstalled(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	stdout, stderr, err := runHelm(t, templateArgs(t, "", "--include-crds")...)
	if err != nil {
		t.Fatalf("helm template --include-crds: %v\n%s", err, stderr)
	}
	out := parseManifests(t, stdout)
	for _, name := range []string{"inferenceservices.ome.io", "trafficmaps.ome.io", "workloadclusters.ome.io"} {
		if _, ok := out[key("CustomResourceDefinition", name)]; !ok {
			t.Errorf("the chart installs no CRD %s; it renders %v", name, out.names())
		}
	}
}
