package workloadcluster

import (
	"encoding/pem"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
)

// A ClusterProfile as a fleet manager publishes it: one access provider, srv's address and
// CA, and the exec extensions KEP-5339 defines.
func profile(srv *versionServer, provider string, extensions ...clientcmdv1.NamedExtension) *v1alpha1.ClusterProfile {
	return &v1alpha1.ClusterProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "worker-a"},
		Status: v1alpha1.ClusterProfileStatus{AccessProviders: []v1alpha1.AccessProvider{{Name: provider, Cluster: clientcmdv1.Cluster{
			Server:                   srv.URL,
			CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
			Extensions:               extensions,
		}}}},
	}
}

func providers(command string, args ...string) ClusterProfiles {
	return ClusterProfiles{Namespace: "fleet", Providers: []access.Provider{{
		Name:                        "ocm",
		ExecConfig:                  &clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: command, Args: args},
		ProfileSourcedCLIArgsPolicy: access.ProfileSourcedCLIArgsPolicyAppend,
	}}}
}

// profileVersion connects with what profileConfig made of cp and asks for /version.
func profileVersion(t *testing.T, cp *v1alpha1.ClusterProfile, p ClusterProfiles, policy ExecPolicy) error {
	t.Helper()
	cfg, _, err := profileConfig(cp, p, policy)
	return askVersion(t, cfg, err)
}

func TestProfileConnectsThroughTheProvidersPlugin(t *testing.T) {
	dir := t.TempDir()
	srv := newVersionServer(t)
	// The token says what the plugin was given: the provider's argument, the profile's
	// appended one, and the cluster it was told about.
	path := plugin(t, dir, "cp-creds", credential(`$1-$2-$(printf %s "$KUBERNETES_EXEC_INFO" | grep -c '"server":"`+srv.URL+`"')`, ""))
	p := providers(path, "--from-provider")
	p.Providers[0].ExecConfig.ProvideClusterInfo = true
	cp := profile(srv, "ocm", clientcmdv1.NamedExtension{Name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-args",
		Extension: runtime.RawExtension{Raw: []byte(`["--from-profile"]`)}})
	if err := profileVersion(t, cp, p, ExecPolicy{Enabled: true, AllowedCommands: []string{path}}); err != nil {
		t.Fatalf("/version through the profile: %v", err)
	}
	if got := srv.seen(); len(got) != 1 || got[0] != "--from-provider---from-profile-1" {
		t.Fatalf("the server saw tokens %q, want [--from-provider---from-profile-1]", got)
	}
	// The installation's provider is left as it was: the next profile starts from it again.
	if args := p.Providers[0].ExecConfig.Args; len(args) != 1 {
		t.Fatalf("the provider's args became %q", args)
	}
}

func TestProfileRefusals(t *testing.T) {
	srv := newVersionServer(t)
	allowed := ExecPolicy{Enabled: true, AllowedCommands: []string{"/opt/bin/cp-creds"}}
	cases := []struct {
		name   string
		edit   func(*v1alpha1.ClusterProfile, *ClusterProfiles)
		policy ExecPolicy
		want   string
	}{{
		name: "no provider the installation knows",
		edit: func(cp *v1alpha1.ClusterProfile, _ *ClusterProfiles) { cp.Status.AccessProviders[0].Name = "gke" },
		want: "ClusterProfile fleet/worker-a offers access providers [gke], none of which is in " +
			"ome.multicluster.clusterProfiles.providers (--clusterprofile-provider-file) [ocm]",
	}, {
		name: "plugin off the allow-list",
		edit: func(_ *v1alpha1.ClusterProfile, p *ClusterProfiles) {
			p.Providers[0].ExecConfig.Command = "/opt/bin/other"
		},
		want: `ClusterProfile fleet/worker-a: exec credential plugin "/opt/bin/other" is refused: it is not in ` +
			"ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)",
	}, {
		name:   "exec credentials off",
		policy: ExecPolicy{AllowedCommands: []string{"/opt/bin/cp-creds"}},
		want: "ClusterProfile fleet/worker-a: exec credential plugins are refused: " +
			"ome.multicluster.execCredentials.enabled (--allow-exec-credentials) is false",
	}, {
		name: "plain http and no CA",
		edit: func(cp *v1alpha1.ClusterProfile, _ *ClusterProfiles) {
			cp.Status.AccessProviders[0].Cluster.Server = "http://127.0.0.1:1"
			cp.Status.AccessProviders[0].Cluster.CertificateAuthorityData = nil
		},
		want: "ClusterProfile fleet/worker-a: server must use https\ncertificate-authority-data is required",
	}, {
		name: "a proxy",
		edit: func(cp *v1alpha1.ClusterProfile, _ *ClusterProfiles) {
			cp.Status.AccessProviders[0].Cluster.ProxyURL = "http://proxy.example.com:3128"
		},
		want: "ClusterProfile fleet/worker-a: proxy-url is refused",
	}, {
		name: "extension that does not parse, which may hold a credential",
		edit: func(cp *v1alpha1.ClusterProfile, _ *ClusterProfiles) {
			cp.Status.AccessProviders[0].Cluster.Extensions = []clientcmdv1.NamedExtension{{
				Name:      "clusterprofiles.multicluster.x-k8s.io/exec/additional-args",
				Extension: runtime.RawExtension{Raw: []byte(`{"token": "s3cr3t"}`)}}}
		},
		want: "ClusterProfile fleet/worker-a: its access provider's exec extensions are refused " +
			"(the parser's message is withheld, as it may quote a credential)",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cp, p := profile(srv, "ocm"), providers("/opt/bin/cp-creds")
			if tc.edit != nil {
				tc.edit(cp, &p)
			}
			policy := allowed
			if tc.policy.AllowedCommands != nil {
				policy = tc.policy
			}
			_, _, err := profileConfig(cp, p, policy)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestProfileIdentityFollowsWhatTheConnectionUses(t *testing.T) {
	srv := newVersionServer(t)
	policy := ExecPolicy{Enabled: true, AllowedCommands: []string{"/opt/bin/cp-creds"}}
	_, a, err := profileConfig(profile(srv, "ocm"), providers("/opt/bin/cp-creds"), policy)
	if err != nil {
		t.Fatal(err)
	}
	_, same, _ := profileConfig(profile(srv, "ocm"), providers("/opt/bin/cp-creds"), policy)
	moved := profile(srv, "ocm")
	moved.Status.AccessProviders[0].Cluster.Server = "https://127.0.0.2:6443"
	_, other, _ := profileConfig(moved, providers("/opt/bin/cp-creds"), policy)
	if string(a) != string(same) || string(a) == string(other) {
		t.Fatal("the identity must change with the server, and only with what the connection uses")
	}
}

func TestClusterProfilesValidate(t *testing.T) {
	good := providers("cp-creds")
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := ClusterProfiles{Namespace: "fleet", Providers: []access.Provider{
		{Name: "a", ExecConfig: &clientcmdapi.ExecConfig{Command: "x", APIVersion: "v1"}},
		{Name: "a", ProfileSourcedEnvVarsPolicy: "Merge"},
	}}
	want := []string{
		`providers[0].execConfig.apiVersion "v1" must be client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1`,
		`providers[1].name "a" is given twice`,
		"providers[1].execConfig.command must be set",
		`providers[1].profileSourcedEnvVarsPolicy "Merge" must be Ignore, AppendIfNotExists or Replace`,
	}
	err := bad.Validate()
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %v, want it to say %q", err, w)
		}
	}
	if err := (ClusterProfiles{Namespace: "fleet"}).Validate(); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("a namespace without providers: %v", err)
	}
}

func TestParseProvidersIsStrict(t *testing.T) {
	if _, err := ParseProviders([]byte(`{"providers":[{"name":"ocm","execconfig":{}}]}`)); err == nil {
		t.Fatal("a misspelt field must be refused")
	}
	got, err := ParseProviders([]byte(`{"providers":[{"name":"ocm","execConfig":{"apiVersion":"client.authentication.k8s.io/v1","command":"cp-creds","args":["-v"]}}]}`))
	if err != nil || len(got) != 1 || got[0].ExecConfig.Command != "cp-creds" || got[0].ExecConfig.Args[0] != "-v" {
		t.Fatalf("got %+v, %v", got, err)
	}
}
