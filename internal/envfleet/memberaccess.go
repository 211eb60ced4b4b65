package envfleet

import (
	"context"
	"errors"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// memberAccessRole is the chart's ClusterRole for a workload cluster (ome.multiclusterAccess).
const memberAccessRole = "ome-multicluster-access"

// ChartMemberRules renders the chart's member ClusterRole (templates/multicluster-access.yaml)
// and returns its rules: what a workload cluster installed with the chart grants the
// control plane. gatewayAddresses is ome.multiclusterAccess.gatewayAddresses, the rights
// the EndpointSlice fallback needs.
func ChartMemberRules(ctx context.Context, gatewayAddresses bool) ([]rbacv1.PolicyRule, error) {
	docs, err := renderChart(ctx, "the chart's member access", "--show-only", "templates/multicluster-access.yaml",
		"--set", "ome.multiclusterAccess.enabled=true", "--set", fmt.Sprintf("ome.multiclusterAccess.gatewayAddresses=%t", gatewayAddresses))
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		var role rbacv1.ClusterRole
		if err := utilyaml.Unmarshal(doc, &role); err != nil {
			return nil, fmt.Errorf("decode a rendered member access object: %w", err)
		}
		if role.Kind == "ClusterRole" {
			return role.Rules, nil
		}
	}
	return nil, errors.New("the chart renders no member ClusterRole")
}

// GrantMemberAccess gives the cluster's member user (the one its WorkloadCluster's
// kubeconfig holds) rules as well, in the chart's ClusterRole name, as installing the
// chart on the cluster with ome.multiclusterAccess naming that user would.
func (c *Cluster) GrantMemberAccess(ctx context.Context, rules []rbacv1.PolicyRule) error {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: memberAccessRole}, Rules: rules}
	if err := c.Client.Create(ctx, role); err != nil {
		return err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: memberAccessRole},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: memberAccessRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "ome-routing-" + c.Name}},
	}
	return c.Client.Create(ctx, binding)
}
