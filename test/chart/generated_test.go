package chart

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The chart's CRDs and the manager's RBAC rules are copies of what controller-gen writes
// into config/, made by make manifests. A hand edit, or a copy not refreshed after
// make manifests, fails here. This part needs no helm.
func TestChartCopiesMatchGenerated(t *testing.T) {
	root := repoRoot(t)
	generated, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(generated) == 0 {
		t.Fatalf("no generated CRDs in config/crd/bases (%v)", err)
	}
	copies, err := filepath.Glob(filepath.Join(chartDir(t), "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if names(generated) != names(copies) {
		t.Errorf("chart crds/ holds %s, config/crd/bases holds %s: run make manifests", names(copies), names(generated))
	}
	pairs := map[string]string{
		filepath.Join(root, "config", "rbac", "role.yaml"): filepath.Join(chartDir(t), "rbac", "role.yaml"),
	}
	for _, g := range generated {
		pairs[g] = filepath.Join(chartDir(t), "crds", filepath.Base(g))
	}
	for src, dst := range pairs {
		want, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(dst)
		if err != nil {
			t.Errorf("%v: run make manifests", err)
			continue
		}
		if !bytes.Equal(got, want) {
			rel, _ := filepath.Rel(root, dst)
			t.Errorf("%s differs from %s: run make manifests, and do not edit the copy", rel, src)
		}
	}
}

// generatedRoles reads config/rbac/role.yaml: the manager's ClusterRole and its Role for
// kubeconfig Secrets, both from the +kubebuilder:rbac markers.
func generatedRoles(t *testing.T) (rbacv1.ClusterRole, rbacv1.Role) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cluster rbacv1.ClusterRole
	var namespaced rbacv1.Role
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatalf("decode config/rbac/role.yaml: %v", err)
		}
		switch head.Kind {
		case "ClusterRole":
			err = yaml.UnmarshalStrict(doc, &cluster)
		case "Role":
			err = yaml.UnmarshalStrict(doc, &namespaced)
		}
		if err != nil {
			t.Fatalf("decode config/rbac/role.yaml: %v", err)
		}
	}
	if len(cluster.Rules) == 0 || len(namespaced.Rules) == 0 {
		t.Fatalf("config/rbac/role.yaml has a ClusterRole with %d rules and a Role with %d", len(cluster.Rules), len(namespaced.Rules))
	}
	return cluster, namespaced
}

// The rendered ClusterRole and Secrets Role carry exactly the generated rules; the Role and
// the manager's --operator-namespace are in the release namespace, whatever it is, and no
// cluster-wide rule reaches Secrets.
func TestRolesAreGenerated(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	generated, generatedSecrets := generatedRoles(t)
	for _, rule := range generated.Rules {
		if slices.Contains(rule.Resources, "secrets") {
			t.Errorf("the generated ClusterRole reaches Secrets: %+v", rule)
		}
	}
	const ns = "routing-system"
	out := render(t, "", "--namespace", ns)
	var role rbacv1.ClusterRole
	out.object(t, "ClusterRole", "ome-manager-role", &role)
	if !reflect.DeepEqual(role.Rules, generated.Rules) {
		t.Errorf("rendered ClusterRole rules differ from config/rbac/role.yaml:\n got %+v\nwant %+v", role.Rules, generated.Rules)
	}
	var binding rbacv1.ClusterRoleBinding
	out.object(t, "ClusterRoleBinding", "ome-manager-rolebinding", &binding)
	want := rbacv1.Subject{Kind: "ServiceAccount", Name: managerName, Namespace: ns}
	if binding.RoleRef.Name != role.Name || !slices.Contains(binding.Subjects, want) {
		t.Errorf("ClusterRoleBinding binds %+v to %+v, want %s to %+v", binding.RoleRef, binding.Subjects, role.Name, want)
	}

	var secrets rbacv1.Role
	out.object(t, "Role", "ome-manager-secrets-role", &secrets)
	if secrets.Namespace != ns || !reflect.DeepEqual(secrets.Rules, generatedSecrets.Rules) {
		t.Errorf("rendered Secrets Role in %q with %+v, want %q with %+v", secrets.Namespace, secrets.Rules, ns, generatedSecrets.Rules)
	}
	var secretsBinding rbacv1.RoleBinding
	out.object(t, "RoleBinding", "ome-manager-secrets-rolebinding", &secretsBinding)
	if secretsBinding.Namespace != ns || secretsBinding.RoleRef.Kind != "Role" || secretsBinding.RoleRef.Name != secrets.Name ||
		!slices.Contains(secretsBinding.Subjects, want) {
		t.Errorf("Secrets RoleBinding %+v", secretsBinding)
	}
	args := out.deployment(t).Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--operator-namespace="+ns) {
		t.Errorf("manager args %q lack --operator-namespace=%s", args, ns)
	}
}

// names lists the files' base names, for comparing two directories.
func names(files []string) string {
	var out []string
	for _, f := range files {
		out = append(out, filepath.Base(f))
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}
