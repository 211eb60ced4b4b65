package workloadcluster

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
)

// notAllowed is the refusal of a variable off ome.multicluster.execCredentials.allowedVariables,
// word for word as the docs quote it.
func notAllowed(command, name string) string {
	return fmt.Sprintf(`exec credential plugin %q is refused: its variable %q is not in `+
		`ome.multicluster.execCredentials.allowedVariables (--exec-credential-allowed-variables), `+
		`the only variables a kubeconfig or a ClusterProfile may set`, command, name)
}

// envExtension is a ClusterProfile's additional-envs extension (KEP-5339) holding vars.
func envExtension(vars string) clientcmdv1.NamedExtension {
	return clientcmdv1.NamedExtension{Name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs",
		Extension: runtime.RawExtension{Raw: []byte(vars)}}
}

// A kubeconfig's exec variables run only when each is on the allow-list, by exact name.
func TestKubeconfigVariablesPassOnlyTheAllowList(t *testing.T) {
	srv := newVersionServer(t)
	cases := []struct {
		name    string
		env     []clientcmdapi.ExecEnvVar
		allowed []string
		want    string
	}{
		{name: "no variables, no list"},
		{name: "an allowed variable", env: []clientcmdapi.ExecEnvVar{{Name: "MEMBER_REGION", Value: "eu"}}, allowed: []string{"MEMBER_REGION"}},
		{name: "a variable with an empty list", env: []clientcmdapi.ExecEnvVar{{Name: "MEMBER_REGION", Value: "eu"}},
			want: notAllowed("/opt/bin/token", "MEMBER_REGION")},
		{name: "names are compared with their case", env: []clientcmdapi.ExecEnvVar{{Name: "member_region", Value: "eu"}},
			allowed: []string{"MEMBER_REGION"}, want: notAllowed("/opt/bin/token", "member_region")},
		{name: "the first variable off the list", allowed: []string{"MEMBER_REGION"},
			env:  []clientcmdapi.ExecEnvVar{{Name: "MEMBER_REGION", Value: "eu"}, {Name: "AWS_PROFILE", Value: "prod"}, {Name: "AZURE_TENANT", Value: "t"}},
			want: notAllowed("/opt/bin/token", "AWS_PROFILE")},
		{name: "a reserved name on the list", env: []clientcmdapi.ExecEnvVar{{Name: "LD_PRELOAD", Value: "/tmp/evil.so"}}, allowed: []string{"LD_PRELOAD"},
			want: `exec credential plugin "/opt/bin/token" is refused: its variable "LD_PRELOAD" is one only the manager sets (` + reservedVariablesRule + ")"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := ExecPolicy{Enabled: true, AllowedCommands: []string{"/opt/bin/token"}, AllowedVariables: tc.allowed}
			_, err := memberConfig(execKubeconfig(t, srv, "/opt/bin/token", tc.env...), policy)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v\nwant %s", err, tc.want)
			}
		})
	}
	if got := srv.seen(); len(got) != 0 {
		t.Fatalf("the member was asked: %q", got)
	}
}

// An allowed variable reaches the plugin.
func TestKubeconfigAllowedVariableReachesThePlugin(t *testing.T) {
	srv := newVersionServer(t)
	path, record := recordingPlugin(t)
	data := execKubeconfig(t, srv, path, clientcmdapi.ExecEnvVar{Name: "MEMBER_REGION", Value: "eu-west"})
	if err := serverVersion(t, data, ExecPolicy{Enabled: true, AllowedCommands: []string{path}, AllowedVariables: []string{"MEMBER_REGION"}}); err != nil {
		t.Fatal(err)
	}
	if got := recordedEnv(t, record)["MEMBER_REGION"]; got != "eu-west" {
		t.Fatalf("the plugin saw MEMBER_REGION=%q, want eu-west", got)
	}
}

// A ClusterProfile's additional variables pass only the allow-list, under either policy
// that reads them; the installation's own provider's variables pass without it, unless a
// profile gives one of them a value of its own.
func TestProfileVariablesPassOnlyTheAllowList(t *testing.T) {
	srv := newVersionServer(t)
	const command = "/opt/bin/cp-creds"
	withOwn := func(policy access.ProfileSourcedEnvVarsPolicy, env ...clientcmdapi.ExecEnvVar) ClusterProfiles {
		p := providers(command)
		p.Providers[0].ProfileSourcedEnvVarsPolicy = policy
		p.Providers[0].ExecConfig.Env = env
		return p
	}
	own := clientcmdapi.ExecEnvVar{Name: "OCM_HUB", Value: "hub-1"}
	for _, policy := range []access.ProfileSourcedEnvVarsPolicy{access.ProfileSourcedEnvVarsPolicyAppendIfNotExists, access.ProfileSourcedEnvVarsPolicyReplace} {
		cases := []profileCase{
			{name: "an allowed variable", profile: `{"MEMBER_REGION": "eu"}`, allowed: []string{"MEMBER_REGION"}},
			{name: "a variable off the list", profile: `{"MEMBER_REGION": "eu", "ZONE": "b"}`, allowed: []string{"MEMBER_REGION"},
				want: notAllowed(command, "ZONE")},
			{name: "the provider's own variable, not on the list", provider: withOwn(policy, own)},
			{name: "the provider's own variable beside an allowed one", profile: `{"MEMBER_REGION": "eu"}`, allowed: []string{"MEMBER_REGION"},
				provider: withOwn(policy, own)},
			{name: "a reserved provider variable, even on the list", allowed: []string{"LD_PRELOAD"},
				provider: withOwn(policy, clientcmdapi.ExecEnvVar{Name: "LD_PRELOAD", Value: "/tmp/evil.so"}),
				want:     `exec credential plugin "` + command + `" is refused: its variable "LD_PRELOAD" is one only the manager sets (` + reservedVariablesRule + ")"},
		}
		if policy == access.ProfileSourcedEnvVarsPolicyReplace {
			// The profile replaces the provider's value: the variable is the profile's now.
			cases = append(cases, profileCase{name: "the profile's value for the provider's variable", profile: `{"OCM_HUB": "elsewhere"}`, provider: withOwn(policy, own),
				want: notAllowed(command, "OCM_HUB")})
		} else {
			// The provider's value wins: the profile sets nothing.
			cases = append(cases, profileCase{name: "the provider's variable named by the profile too", profile: `{"OCM_HUB": "elsewhere"}`, provider: withOwn(policy, own)})
		}
		for _, tc := range cases {
			t.Run(string(policy)+" "+tc.name, func(t *testing.T) {
				p := tc.provider
				if p.Providers == nil {
					p = withOwn(policy)
				}
				var ext []clientcmdv1.NamedExtension
				if tc.profile != "" {
					ext = append(ext, envExtension(tc.profile))
				}
				_, _, err := profileConfig(profile(srv, "ocm", ext...), p,
					ExecPolicy{Enabled: true, AllowedCommands: []string{command}, AllowedVariables: tc.allowed})
				if tc.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if want := "ClusterProfile fleet/worker-a: " + tc.want; err == nil || err.Error() != want {
					t.Fatalf("error = %v\nwant %s", err, want)
				}
			})
		}
	}
}

// What the plugin sees through a profile: the provider's variable and the allowed one.
func TestProfileAllowedVariableReachesThePlugin(t *testing.T) {
	srv := newVersionServer(t)
	path, record := recordingPlugin(t)
	p := providers(path)
	p.Providers[0].ProfileSourcedEnvVarsPolicy = access.ProfileSourcedEnvVarsPolicyAppendIfNotExists
	p.Providers[0].ExecConfig.Env = []clientcmdapi.ExecEnvVar{{Name: "OCM_HUB", Value: "hub-1"}}
	cp := profile(srv, "ocm", envExtension(`{"MEMBER_REGION": "eu"}`))
	if err := profileVersion(t, cp, p, ExecPolicy{Enabled: true, AllowedCommands: []string{path}, AllowedVariables: []string{"MEMBER_REGION"}}); err != nil {
		t.Fatal(err)
	}
	env := recordedEnv(t, record)
	if env["OCM_HUB"] != "hub-1" || env["MEMBER_REGION"] != "eu" {
		t.Fatalf("the plugin saw OCM_HUB=%q MEMBER_REGION=%q", env["OCM_HUB"], env["MEMBER_REGION"])
	}
}

// A profile's variables come out of cluster-inventory-api's merge in a map's order: they
// are sorted by name, so the connection's identity does not change from one reconcile to
// the next and the connection is not replaced for nothing.
func TestProfileVariablesAreSortedAndTheIdentityStable(t *testing.T) {
	srv := newVersionServer(t)
	var names []string
	var vars []string
	for i := range 16 {
		name := fmt.Sprintf("VAR_%02d", 15-i)
		names = append(names, name)
		vars = append(vars, fmt.Sprintf("%q: %q", name, name))
	}
	p := providers("/opt/bin/cp-creds")
	p.Providers[0].ProfileSourcedEnvVarsPolicy = access.ProfileSourcedEnvVarsPolicyReplace
	policy := ExecPolicy{Enabled: true, AllowedCommands: []string{"/opt/bin/cp-creds"}, AllowedVariables: names}
	// build returns the identity and the plugin's variables as the identity records them.
	build := func() ([]byte, []string) {
		cp := profile(srv, "ocm", envExtension("{"+strings.Join(vars, ", ")+"}"))
		_, identity, err := profileConfig(cp, p, policy)
		if err != nil {
			t.Fatal(err)
		}
		var id struct{ Exec clientcmdapi.ExecConfig }
		if err := json.Unmarshal(identity, &id); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range id.Exec.Env {
			got = append(got, v.Name)
		}
		return identity, got
	}
	first, got := build()
	if !slices.IsSorted(got) || len(got) != len(names) {
		t.Fatalf("the plugin's variables are %q, want the %d names in order", got, len(names))
	}
	for range 20 {
		if again, _ := build(); string(again) != string(first) {
			t.Fatalf("the identity changed between two builds of the same profile:\n%s\n%s", first, again)
		}
	}
}

func TestExecPolicyValidate(t *testing.T) {
	if err := (ExecPolicy{AllowedVariables: []string{"MEMBER_REGION", "AWS_PROFILE"}}).Validate(); err != nil {
		t.Fatal(err)
	}
	err := ExecPolicy{AllowedVariables: []string{"MEMBER_REGION", "LD_PRELOAD", "https_proxy"}}.Validate()
	want := `ome.multicluster.execCredentials.allowedVariables (--exec-credential-allowed-variables) lists "LD_PRELOAD", ` +
		`a variable only the manager sets for a plugin (` + reservedVariablesRule + ")\n" +
		`ome.multicluster.execCredentials.allowedVariables (--exec-credential-allowed-variables) lists "https_proxy", ` +
		`a variable only the manager sets for a plugin (` + reservedVariablesRule + ")"
	if err == nil || err.Error() != want {
		t.Fatalf("Validate() = %v\nwant %s", err, want)
	}
}

// profileCase is one ClusterProfile's variables against a provider and the allow-list.
type profileCase struct {
	name     string
	profile  string
	provider ClusterProfiles
	allowed  []string
	want     string // empty: connects
}
