package envfleet

import (
	"context"
	"fmt"
	"path/filepath"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The tests run the controllers with the rights the chart gives them and read members with
// the rights docs/install.md says a member must grant, not as system:masters: a rule the code
// needs and the chart lacks fails the tests, and so does a read the code should not make.

// ManagerServiceAccount is the manager's ServiceAccount in the chart.
const ManagerServiceAccount = "ome-controller-manager"

// chartRBACTemplates are the chart's templates that give the manager its rights.
var chartRBACTemplates = []string{
	"templates/serviceaccount.yaml",
	"templates/clusterrole.yaml",
	"templates/leader-election-rbac.yaml",
}

// ChartDir is the Helm chart's folder.
func ChartDir() string {
	return filepath.Join(RepoRoot(), "charts", "ome-resources")
}

// InstallChartRBAC renders the chart's ServiceAccount, ClusterRole, Secrets Role and their
// bindings for a release in namespace (which must exist) with the helm in $HELM, creates
// them on the cluster, and returns a client configuration that impersonates the manager's
// ServiceAccount with them. values are more helm arguments (--set, --set-json), for the
// roles that depend on them.
func (c *Cluster) InstallChartRBAC(ctx context.Context, namespace string, values ...string) (*rest.Config, error) {
	args := []string{"--namespace", namespace}
	for _, t := range chartRBACTemplates {
		args = append(args, "--show-only", t)
	}
	docs, err := renderChart(ctx, "the chart's RBAC", append(args, values...)...)
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		obj := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(doc, &obj.Object); err != nil {
			return nil, fmt.Errorf("decode a rendered RBAC object: %w", err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Client.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":" + ManagerServiceAccount,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	return cfg, nil
}

// MemberRules are the rights a workload cluster grants the control plane, as docs/install.md
// lists them: read the InferenceService copies. /version, the health check, is open to
// every authenticated user by Kubernetes' default policy.
var MemberRules = []rbacv1.PolicyRule{{
	APIGroups: []string{omev1beta1.GroupVersion.Group},
	Resources: []string{"inferenceservices"},
	Verbs:     []string{"get", "list", "watch"},
}}

// memberRoleName is the ClusterRole holding MemberRules on a workload cluster.
const memberRoleName = "ome-routing-member-reader"

// addMember creates a user with only MemberRules on the cluster and returns its kubeconfig,
// with the server, CA, client certificate and key inline.
func (c *Cluster) addMember(ctx context.Context) ([]byte, error) {
	user, err := c.Env.AddUser(envtest.User{Name: "ome-routing-" + c.Name}, nil)
	if err != nil {
		return nil, err
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: memberRoleName}, Rules: MemberRules}
	if err := c.Client.Create(ctx, role); err != nil {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: memberRoleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: memberRoleName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "ome-routing-" + c.Name}},
	}
	if err := c.Client.Create(ctx, binding); err != nil {
		return nil, err
	}
	return user.KubeConfig()
}
