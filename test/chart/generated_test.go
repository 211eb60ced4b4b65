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

// The rendered ClusterRole carries exactly the generated rules.
func TestClusterRoleRulesAreGenerated(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var generated rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &generated); err != nil {
		t.Fatalf("decode config/rbac/role.yaml: %v", err)
	}
	if len(generated.Rules) == 0 {
		t.Fatal("config/rbac/role.yaml has no rules")
	}

	out := render(t, "")
	var role rbacv1.ClusterRole
	out.object(t, "ClusterRole", "ome-manager-role", &role)
	if !reflect.DeepEqual(role.Rules, generated.Rules) {
		t.Errorf("rendered ClusterRole rules differ from config/rbac/role.yaml:\n got %+v\nwant %+v", role.Rules, generated.Rules)
	}
	var binding rbacv1.ClusterRoleBinding
	out.object(t, "ClusterRoleBinding", "ome-manager-rolebinding", &binding)
	want := rbacv1.Subject{Kind: "ServiceAccount", Name: managerName, Namespace: releaseNamespace}
	if binding.RoleRef.Name != role.Name || !slices.Contains(binding.Subjects, want) {
		t.Errorf("ClusterRoleBinding binds %+v to %+v, want %s to %+v", binding.RoleRef, binding.Subjects, role.Name, want)
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
