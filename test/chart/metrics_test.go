package chart

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Metrics are served over HTTPS with authentication and authorization unless a value asks
// for plain HTTP; the chart gives the manager the review rights the check needs and a
// reader role for scrapers.
func TestSecureMetrics(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	out := render(t, "")
	args := out.deployment(t).Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--metrics-secure=true") {
		t.Errorf("default manager args %q lack --metrics-secure=true", args)
	}
	var reader rbacv1.ClusterRole
	out.object(t, "ClusterRole", "ome-metrics-reader", &reader)
	want := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
	if !slicesEqualRules(reader.Rules, want) {
		t.Errorf("ome-metrics-reader rules = %+v, want %+v", reader.Rules, want)
	}
	var manager rbacv1.ClusterRole
	out.object(t, "ClusterRole", "ome-manager-role", &manager)
	for _, need := range []rbacv1.PolicyRule{
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	} {
		if !slicesEqualRules([]rbacv1.PolicyRule{need}, []rbacv1.PolicyRule{findRule(manager.Rules, need.Resources[0])}) {
			t.Errorf("the manager's ClusterRole lacks %+v: %+v", need, manager.Rules)
		}
	}

	plain := render(t, "metrics:\n  port: 8080\n  secure: false\n")
	args = plain.deployment(t).Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--metrics-secure=false") {
		t.Errorf("manager args %q with metrics.secure=false lack --metrics-secure=false", args)
	}
	if _, ok := plain[key("ClusterRole", "ome-metrics-reader")]; ok {
		t.Error("metrics.secure=false still renders ome-metrics-reader")
	}
	if msg := renderError(t, "metrics:\n  port: 8080\n  secure: \"yes\"\n"); !containsAll(msg, "/metrics/secure", "want boolean") {
		t.Errorf("a string for metrics.secure: %s", msg)
	}
}

func findRule(rules []rbacv1.PolicyRule, resource string) rbacv1.PolicyRule {
	for _, r := range rules {
		if slices.Contains(r.Resources, resource) {
			return r
		}
	}
	return rbacv1.PolicyRule{}
}

func slicesEqualRules(a, b []rbacv1.PolicyRule) bool {
	return slices.EqualFunc(a, b, func(x, y rbacv1.PolicyRule) bool {
		return slices.Equal(x.APIGroups, y.APIGroups) && slices.Equal(x.Resources, y.Resources) &&
			slices.Equal(x.Verbs, y.Verbs) && slices.Equal(x.NonResourceURLs, y.NonResourceURLs)
	})
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
