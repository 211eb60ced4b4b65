package workloadcluster

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfig builds a one-context kubeconfig; mutate adjusts it before it is serialised.
func kubeconfig(t *testing.T, mutate func(*clientcmdapi.Cluster, *clientcmdapi.AuthInfo)) []byte {
	t.Helper()
	cluster := &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", CertificateAuthorityData: []byte("ca")}
	auth := &clientcmdapi.AuthInfo{Token: "secret-token"}
	if mutate != nil {
		mutate(cluster, auth)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["member"] = cluster
	cfg.AuthInfos["admin"] = auth
	cfg.Contexts["member"] = &clientcmdapi.Context{Cluster: "member", AuthInfo: "admin"}
	cfg.CurrentContext = "member"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestMemberConfig(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*clientcmdapi.Cluster, *clientcmdapi.AuthInfo)
		wantErr string
	}{
		{name: "inline CA and token", mutate: nil},
		{name: "inline client certificate", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.Token, a.ClientCertificateData, a.ClientKeyData = "", []byte("cert"), []byte("key")
		}},
		{name: "plain http", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) { c.Server = "http://127.0.0.1:6443" },
			wantErr: "must use https"},
		{name: "insecure TLS", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) { c.InsecureSkipTLSVerify = true },
			wantErr: "insecure-skip-tls-verify is refused"},
		{name: "CA file path", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.CertificateAuthorityData, c.CertificateAuthority = nil, "/etc/ca.crt"
		}, wantErr: "certificate-authority file paths are refused"},
		{name: "no CA", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) { c.CertificateAuthorityData = nil },
			wantErr: "certificate-authority-data is required"},
		{name: "token file", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) { a.Token, a.TokenFile = "", "/var/token" },
			wantErr: "credential file paths are refused"},
		{name: "basic auth", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) { a.Username, a.Password = "admin", "pw" },
			wantErr: "basic auth is refused"},
		{name: "auth-provider", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.AuthProvider = &clientcmdapi.AuthProviderConfig{Name: "gcp"}
		}, wantErr: "auth-provider is refused"},
		{name: "exec plugin", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.Exec = &clientcmdapi.ExecConfig{Command: "aws", APIVersion: "client.authentication.k8s.io/v1"}
		}, wantErr: "exec credential plugins are refused: ome.multicluster.execCredentials.enabled (--allow-exec-credentials) is false"},
		{name: "server with user information", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server = "https://admin:s3cret@127.0.0.1:6443"
		}, wantErr: "server with user information is refused"},
		{name: "server with a query", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server = "https://127.0.0.1:6443/?access_token=s3cret"
		}, wantErr: "server with a query is refused"},
		{name: "server with a fragment", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server = "https://127.0.0.1:6443/#s3cret"
		}, wantErr: "server with a fragment is refused"},
		{name: "plain http with a password", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server = "http://admin:s3cret@127.0.0.1:6443"
		}, wantErr: "server must use https"},
		{name: "server that does not parse", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server = "https://admin:s3cret@[::1"
		}, wantErr: "server is not a URL"},
		{name: "proxy-url", mutate: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.ProxyURL = "http://proxy:s3cret@10.0.0.1:3128"
		}, wantErr: "proxy-url is refused"},
		{name: "impersonated user", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) { a.Impersonate = "system:admin" },
			wantErr: "impersonation is refused"},
		{name: "impersonated groups", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.ImpersonateGroups = []string{"system:masters"}
		}, wantErr: "impersonation is refused"},
		{name: "impersonated UID", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) { a.ImpersonateUID = "1234" },
			wantErr: "impersonation is refused"},
		{name: "impersonated extra", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.ImpersonateUserExtra = map[string][]string{"scopes": {"all"}}
		}, wantErr: "impersonation is refused"},
		{name: "client certificate file", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.Token, a.ClientCertificate, a.ClientKeyData = "", "/etc/member/tls.crt", []byte("key")
		}, wantErr: "credential file paths are refused"},
		{name: "client key file", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
			a.Token, a.ClientCertificateData, a.ClientKey = "", []byte("cert"), "/etc/member/tls.key"
		}, wantErr: "credential file paths are refused"},
		{name: "no credentials", mutate: func(_ *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) { a.Token = "" },
			wantErr: "an inline token or client-certificate-data and client-key-data are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := memberConfig(kubeconfig(t, tt.mutate), ExecPolicy{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("memberConfig() error: %v", err)
				}
				if cfg.Host != "https://127.0.0.1:6443" {
					t.Errorf("host = %q", cfg.Host)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("memberConfig() error = %v, want one containing %q", err, tt.wantErr)
			}
			// The error becomes the WorkloadCluster's status: it never quotes a credential.
			if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "secret-token") {
				t.Fatalf("memberConfig() error %q quotes a credential", err)
			}
		})
	}
	t.Run("not a kubeconfig", func(t *testing.T) {
		if _, err := memberConfig([]byte("{not yaml"), ExecPolicy{}); err == nil || !strings.HasPrefix(err.Error(), "parse kubeconfig") {
			t.Fatalf("memberConfig() error = %v, want a parse error", err)
		}
	})
}

// A kubeconfig that does not parse is refused without quoting what the parser could not
// read: YAML errors quote the offending value, which may be the token.
func TestMemberConfigParseErrorsQuoteNothing(t *testing.T) {
	cases := []struct {
		token, want string
	}{
		{"*SeCrEt", "parse kubeconfig: not a valid kubeconfig (the parser's message is withheld, as it may quote a credential)"},
		{"!!int SeCrEt", "parse kubeconfig: not a valid kubeconfig (the parser's message is withheld, as it may quote a credential)"},
		{"!!float SeCrEt", "parse kubeconfig: not a valid kubeconfig (the parser's message is withheld, as it may quote a credential)"},
		{"[SeCrEt", "parse kubeconfig: not a valid kubeconfig at line 10 (the parser's message is withheld, as it may quote a credential)"},
		{"{SeCrEt", "parse kubeconfig: not a valid kubeconfig at line 10 (the parser's message is withheld, as it may quote a credential)"},
		{`"SeCrEt`, "parse kubeconfig: not a valid kubeconfig at line 15 (the parser's message is withheld, as it may quote a credential)"},
	}
	for _, tc := range cases {
		t.Run(tc.token, func(t *testing.T) {
			data := "apiVersion: v1\nkind: Config\nclusters:\n- name: m\n  cluster:\n    server: https://127.0.0.1\n" +
				"users:\n- name: u\n  user:\n    token: " + tc.token + "\ncontexts:\n- name: m\n  context: {cluster: m, user: u}\ncurrent-context: m\n"
			_, err := memberConfig([]byte(data), ExecPolicy{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("memberConfig = %v, want %q", err, tc.want)
			}
			if strings.Contains(strings.ToLower(err.Error()), "secret") {
				t.Fatalf("the error %q quotes the token", err)
			}
		})
	}
}
