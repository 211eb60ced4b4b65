package chart

import (
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/ome-routing/operator/controllers/workloadcluster"
)

// clusterProfileValues read ClusterProfiles from fleet-system through one provider.
const clusterProfileValues = `
ome:
  multicluster:
    enabled: true
    role: control-plane
    execCredentials: {enabled: true, allowedCommands: [cp-creds]}
    clusterProfiles:
      namespace: fleet-system
      providers:
        - name: open-cluster-management
          execConfig:
            apiVersion: client.authentication.k8s.io/v1
            command: cp-creds
            args: ["--managed-serviceaccount=ome-routing"]
            provideClusterInfo: true
          profileSourcedCLIArgsPolicy: Append
`

// TestClusterProfilesRender: the provider file the manager reads, with its flags, and a Role
// to read ClusterProfiles in their namespace alone.
func TestClusterProfilesRender(t *testing.T) {
	r := render(t, clusterProfileValues)
	var cm corev1.ConfigMap
	r.object(t, "ConfigMap", configMapName, &cm)
	providers, err := workloadcluster.ParseProviders([]byte(cm.Data["clusterprofile-providers"]))
	if err != nil {
		t.Fatalf("the manager refuses the rendered provider file: %v\n%s", err, cm.Data["clusterprofile-providers"])
	}
	profiles := workloadcluster.ClusterProfiles{Namespace: "fleet-system", Providers: providers}
	if err := profiles.Validate(); err != nil || len(providers) != 1 || providers[0].ExecConfig.Args[0] != "--managed-serviceaccount=ome-routing" {
		t.Fatalf("providers %+v: %v", providers, err)
	}

	args := r.deployment(t).Spec.Template.Spec.Containers[0].Args
	var file string
	for _, a := range args {
		if f, ok := strings.CutPrefix(a, "--clusterprofile-provider-file="); ok {
			file = f
		}
	}
	if !slices.Contains(args, "--clusterprofile-namespace=fleet-system") || file == "" {
		t.Fatalf("manager args %q lack the ClusterProfile flags", args)
	}
	mounted := false
	for _, v := range r.deployment(t).Spec.Template.Spec.Volumes {
		for _, item := range v.ConfigMap.Items {
			mounted = mounted || (item.Key == "clusterprofile-providers" && item.Path == path.Base(file))
		}
	}
	if !mounted {
		t.Fatal("the provider file the flag names is not mounted from the ConfigMap's clusterprofile-providers key")
	}

	var role rbacv1.Role
	r.object(t, "Role", "ome-manager-clusterprofiles-role", &role)
	want := []rbacv1.PolicyRule{{APIGroups: []string{"multicluster.x-k8s.io"}, Resources: []string{"clusterprofiles"}, Verbs: []string{"get", "list", "watch"}}}
	if role.Namespace != "fleet-system" || len(role.Rules) != 1 || !slices.Equal(role.Rules[0].Verbs, want[0].Verbs) ||
		!slices.Equal(role.Rules[0].Resources, want[0].Resources) || !slices.Equal(role.Rules[0].APIGroups, want[0].APIGroups) {
		t.Fatalf("Role %s/%s rules %+v, want %+v", role.Namespace, role.Name, role.Rules, want)
	}
	var binding rbacv1.RoleBinding
	r.object(t, "RoleBinding", "ome-manager-clusterprofiles-rolebinding", &binding)
	if binding.Namespace != "fleet-system" || binding.Subjects[0].Name != managerName || binding.Subjects[0].Namespace != releaseNamespace {
		t.Fatalf("RoleBinding %+v", binding)
	}
}

// TestClusterProfilesOffByDefault: no provider file, flag or Role unless a namespace is set.
func TestClusterProfilesOffByDefault(t *testing.T) {
	r := render(t, edit(t, clusterProfileValues, "namespace: fleet-system", `namespace: ""`), "--set", "ome.multicluster.clusterProfiles.providers=null")
	for _, name := range r.names() {
		if strings.Contains(name, "clusterprofiles") {
			t.Errorf("rendered %s without a ClusterProfile namespace", name)
		}
	}
	for _, a := range r.deployment(t).Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--clusterprofile") {
			t.Errorf("manager arg %s without a ClusterProfile namespace", a)
		}
	}
}

func TestClusterProfilesRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		values, want string
	}{
		"providers without a namespace": {edit(t, clusterProfileValues, "namespace: fleet-system", `namespace: ""`),
			"ome.multicluster.clusterProfiles.providers are set and namespace is empty: set the namespace ClusterProfiles are read from"},
		"an unknown exec field": {edit(t, clusterProfileValues, "provideClusterInfo: true", "provideClusterInfo: true\n            installHint: x"),
			"installHint"},
		"a relative command": {edit(t, clusterProfileValues, "command: cp-creds", "command: bin/cp-creds"), "command"},
	} {
		t.Run(name, func(t *testing.T) {
			if stderr := renderError(t, tc.values); !strings.Contains(stderr, tc.want) {
				t.Fatalf("helm said:\n%s\nwant it to say %q", stderr, tc.want)
			}
		})
	}
	stderr := renderError(t, clusterProfileValues, "--set", "ome.multicluster.clusterProfiles.providers=null")
	if want := "ome.multicluster.clusterProfiles.namespace is set and providers is empty: a ClusterProfile connects through the access providers listed there"; !strings.Contains(stderr, want) {
		t.Fatalf("helm said:\n%s\nwant it to say %q", stderr, want)
	}
}
