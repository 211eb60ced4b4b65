package chart

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ome-routing/operator/controllers/workloadcluster"
)

// execValues turn exec credential plugins on with the given allowedVariables (YAML flow list).
func execValues(variables string) string {
	return `ome:
  multicluster:
    enabled: true
    role: control-plane
    execCredentials:
      enabled: true
      allowedCommands: [aws]
      allowedVariables: ` + variables + "\n"
}

// managerArg is the value of the manager's flag --name=, failing the test when it is absent.
func managerArg(t *testing.T, r rendered, name string) string {
	t.Helper()
	for _, a := range r.deployment(t).Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	t.Fatalf("the manager has no --%s", name)
	return ""
}

// The allowed variables reach the manager as its comma-separated flag; by default none.
func TestExecVariablesRender(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	if got := managerArg(t, render(t, execValues("[MEMBER_REGION, AWS_PROFILE]")), "exec-credential-allowed-variables"); got != "MEMBER_REGION,AWS_PROFILE" {
		t.Errorf("--exec-credential-allowed-variables=%s, want MEMBER_REGION,AWS_PROFILE", got)
	}
	if got := managerArg(t, render(t, execValues("[]")), "exec-credential-allowed-variables"); got != "" {
		t.Errorf("--exec-credential-allowed-variables=%s by default, want none", got)
	}
	if got := managerArg(t, render(t, "", "--set", "ome.multicluster.enabled=true", "--set", "ome.multicluster.execCredentials.enabled=true"),
		"exec-credential-allowed-variables"); got != "" {
		t.Errorf("--exec-credential-allowed-variables=%s with values.yaml's default, want none", got)
	}
}

// reservedCandidates are every name the manager reserves, in its case and in lower case,
// and a name under each reserved prefix.
func reservedCandidates() []string {
	names, prefixes := workloadcluster.ReservedVariables()
	var out []string
	for _, n := range names {
		out = append(out, n, strings.ToLower(n))
	}
	for _, p := range prefixes {
		out = append(out, p+"X", strings.ToLower(p)+"x")
	}
	return out
}

// Every reserved name the manager refuses in the allow-list, the chart refuses: the schema
// first, and the template (for helm runs that skip the schema) with the manager's own lines.
func TestExecVariablesChartRefusesWhatTheManagerRefuses(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	reserved := reservedCandidates()
	list := append([]string{"MEMBER_REGION"}, reserved...)
	values := execValues("[" + strings.Join(list, ", ") + "]")

	manager := workloadcluster.ExecPolicy{AllowedVariables: list}.Validate()
	if manager == nil || strings.Count(manager.Error(), "\n")+1 != len(reserved) {
		t.Fatalf("the manager refuses %v with:\n%v\nwant one line for each of %d reserved names", list, manager, len(reserved))
	}
	stderr := renderError(t, values, "--skip-schema-validation")
	if want := "the manager would refuse ome.multicluster.execCredentials and crash-loop:\n" + manager.Error() + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("helm's error does not carry the manager's lines\n%s\nit printed:\n%s", want, stderr)
	}

	stderr = renderError(t, values)
	if !strings.Contains(stderr, schemaErrorHeader) {
		t.Fatalf("the schema does not refuse the reserved names; helm printed:\n%s", stderr)
	}
	for i, name := range list {
		line := fmt.Sprintf("- at '/ome/multicluster/execCredentials/allowedVariables/%d': 'not' failed", i)
		if refused := strings.Contains(stderr, line+"\n"); refused != (name != "MEMBER_REGION") {
			t.Errorf("the schema's refusal of %s (item %d) is %v; helm printed:\n%s", name, i, refused, stderr)
		}
	}
}

// Names beside the reserved ones, which the manager accepts, render: neither the schema nor
// the template is stricter than the manager.
func TestExecVariablesChartAcceptsWhatTheManagerAccepts(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	list := []string{"MEMBER_REGION", "PATHS", "MY_PATH", "HOMEDIR", "LD", "NODE", "PYTHO", "AWS_PROFILE", "member_region", "XDG_RUNTIME_DIR"}
	if err := (workloadcluster.ExecPolicy{AllowedVariables: list}).Validate(); err != nil {
		t.Fatalf("the manager refuses %v: %v", list, err)
	}
	got := managerArg(t, render(t, execValues("["+strings.Join(list, ", ")+"]")), "exec-credential-allowed-variables")
	if !slices.Equal(strings.Split(got, ","), list) {
		t.Errorf("--exec-credential-allowed-variables=%s, want %s", got, strings.Join(list, ","))
	}
}
