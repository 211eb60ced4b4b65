package workloadcluster

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// A plugin is a shell script in a temporary directory: the manager runs it as it would
// aws or kubelogin, and an API server stand-in on a real TLS socket sees the token it
// printed.

// plugin writes an executable script whose body prints to stdout what the test needs.
func plugin(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// credential is a script line printing an ExecCredential with the given token expression
// and expiry (empty: none).
func credential(token, expiry string) string {
	exp := ""
	if expiry != "" {
		exp = `,"expirationTimestamp":"` + expiry + `"`
	}
	return `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"` + exp + `}}' "` + token + `"`
}

// versionServer answers /version over TLS and records each request's bearer token.
type versionServer struct {
	*httptest.Server
	mu     sync.Mutex
	tokens []string
}

func newVersionServer(t *testing.T) *versionServer {
	s := &versionServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.tokens = append(s.tokens, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *versionServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...)
}

// execKubeconfig is a kubeconfig for srv whose user runs command.
func execKubeconfig(t *testing.T, srv *versionServer, command string, env ...clientcmdapi.ExecEnvVar) []byte {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return kubeconfig(t, func(c *clientcmdapi.Cluster, a *clientcmdapi.AuthInfo) {
		c.Server, c.CertificateAuthorityData = srv.URL, ca
		a.Token = ""
		a.Exec = &clientcmdapi.ExecConfig{Command: command, APIVersion: "client.authentication.k8s.io/v1", Env: env,
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
	})
}

// serverVersion connects with what memberConfig made of data and asks for /version.
func serverVersion(t *testing.T, data []byte, policy ExecPolicy) error {
	t.Helper()
	cfg, err := memberConfig(data, policy)
	return askVersion(t, cfg, err)
}

// askVersion asks /version with cfg, or returns err, the error of building it.
func askVersion(t *testing.T, cfg *rest.Config, err error) error {
	t.Helper()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.Discovery().ServerVersion()
	return err
}

func TestExecPluginOnTheAllowListAuthenticates(t *testing.T) {
	dir := t.TempDir()
	srv := newVersionServer(t)
	t.Setenv("OME_MANAGER_SECRET", "leaked")
	// The token carries what the plugin sees of the manager's environment and of the
	// kubeconfig's: the first must be empty, the second set.
	path := plugin(t, dir, "token-plugin", credential("tok-${OME_MANAGER_SECRET}-${FROM_KUBECONFIG}", ""))
	data := execKubeconfig(t, srv, path, clientcmdapi.ExecEnvVar{Name: "FROM_KUBECONFIG", Value: "kc"})
	if err := serverVersion(t, data, ExecPolicy{Enabled: true, AllowedCommands: []string{path}, AllowedVariables: []string{"FROM_KUBECONFIG"}}); err != nil {
		t.Fatalf("/version with the plugin's token: %v", err)
	}
	if got := srv.seen(); len(got) != 1 || got[0] != "tok--kc" {
		t.Fatalf("the server saw tokens %q, want [tok--kc]: the plugin must not see the manager's environment", got)
	}
}

func TestExecPluginByBareNameFromPATH(t *testing.T) {
	dir := t.TempDir()
	srv := newVersionServer(t)
	plugin(t, dir, "kubelogin", credential("from-path", ""))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	data := execKubeconfig(t, srv, "kubelogin")
	if err := serverVersion(t, data, ExecPolicy{Enabled: true, AllowedCommands: []string{"aws", "kubelogin"}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.seen(); len(got) != 1 || got[0] != "from-path" {
		t.Fatalf("tokens %q", got)
	}
}

func TestExecPluginRefusals(t *testing.T) {
	srv := newVersionServer(t)
	allowed := ExecPolicy{Enabled: true, AllowedCommands: []string{"aws", "/opt/bin/kubelogin"}}
	cases := []struct {
		name, command string
		policy        ExecPolicy
		want          string
	}{
		{"exec turned off", "aws", ExecPolicy{AllowedCommands: []string{"aws"}},
			`exec credential plugins are refused: ome.multicluster.execCredentials.enabled (--allow-exec-credentials) is false`},
		{"not on the list", "gke-gcloud-auth-plugin", allowed,
			`exec credential plugin "gke-gcloud-auth-plugin" is refused: it is not in ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)`},
		{"an absolute path the list names only by name", "/tmp/aws", allowed,
			`exec credential plugin "/tmp/aws" is refused: it is not in ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)`},
		{"a bare name the list names only by path", "kubelogin", allowed,
			`exec credential plugin "kubelogin" is refused: it is not in ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)`},
		{"a relative path", "./aws", ExecPolicy{Enabled: true, AllowedCommands: []string{"./aws"}},
			`exec credential plugin "./aws" is refused: a command is a bare name looked up in PATH or an absolute path`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := memberConfig(execKubeconfig(t, srv, tc.command), tc.policy)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
	if got := srv.seen(); len(got) != 0 {
		t.Fatalf("a refused plugin reached the server: %q", got)
	}
}

func TestExecPluginFailuresQuoteNothing(t *testing.T) {
	dir := t.TempDir()
	srv := newVersionServer(t)
	cases := []struct {
		name, body, want string
	}{
		{"exit status", `echo "s3cret on stdout"; echo "s3cret on stderr" >&2; exit 3`,
			`failed with exit status 3 (its output is withheld, as it may hold a credential)`},
		{"not an ExecCredential", `echo "s3cret"`, `did not print an ExecCredential with a status`},
		{"no token", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientKeyData":"s3cret"}}'`,
			`printed no token: only token credentials are supported`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := plugin(t, dir, strings.ReplaceAll(tc.name, " ", "-"), tc.body)
			err := serverVersion(t, execKubeconfig(t, srv, path), ExecPolicy{Enabled: true, AllowedCommands: []string{path}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error quotes the plugin's output: %v", err)
			}
		})
	}
}

func TestExecPluginThatHangsIsCutOff(t *testing.T) {
	dir := t.TempDir()
	srv := newVersionServer(t)
	path := plugin(t, dir, "hang", "exec sleep 60")
	policy := ExecPolicy{Enabled: true, AllowedCommands: []string{path}, Timeout: 300 * time.Millisecond}
	start := time.Now()
	err := serverVersion(t, execKubeconfig(t, srv, path), policy)
	if err == nil || !strings.Contains(err.Error(), `did not finish within 300ms`) {
		t.Fatalf("error = %v, want the timeout", err)
	}
	// Not a wall-clock assertion on the product: the run must have been cut off, not left
	// to the sleep's 60 s, or this test would not return at all within its own timeout.
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Fatalf("the hung plugin ran for %s", elapsed)
	}
}

func TestExecPluginTokenIsReusedUntilItExpires(t *testing.T) {
	dir := t.TempDir()
	srv := newVersionServer(t)
	runs := filepath.Join(dir, "runs")
	// Each run appends a line to runs and prints a token naming the run's number.
	body := `echo run >> "` + runs + `"; n=$(wc -l < "` + runs + `" | tr -d ' '); `
	later := plugin(t, dir, "later", body+credential("run-$n", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)))
	cfg, err := memberConfig(execKubeconfig(t, srv, later), ExecPolicy{Enabled: true, AllowedCommands: []string{later}})
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	for range 3 {
		if _, err := cs.Discovery().ServerVersion(); err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.seen(); strings.Join(got, ",") != "run-1,run-1,run-1" {
		t.Fatalf("tokens %q: a token valid for an hour must be reused", got)
	}

	// A token that has already expired is fetched again for each request.
	_ = os.Remove(runs)
	expired := plugin(t, dir, "expired", body+credential("old-$n", time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)))
	srv2 := newVersionServer(t)
	cfg, err = memberConfig(execKubeconfig(t, srv2, expired), ExecPolicy{Enabled: true, AllowedCommands: []string{expired}})
	if err != nil {
		t.Fatal(err)
	}
	cs = kubernetes.NewForConfigOrDie(cfg)
	for range 2 {
		_, _ = cs.Discovery().ServerVersion()
	}
	if got := srv2.seen(); len(got) < 2 || got[0] == got[1] {
		t.Fatalf("tokens %q: an expired token must not be reused", got)
	}
}
