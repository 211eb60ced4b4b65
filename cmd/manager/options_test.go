package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseOptions(fs, args)
}

func TestObserverHosts(t *testing.T) {
	o, err := parse(t, "--observer-host=worker-a.demo.test=127.0.0.1", "--observer-host", "worker-b.demo.test=::1")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.observerHosts) != 2 || o.observerHosts["worker-a.demo.test"].String() != "127.0.0.1" || o.observerHosts["worker-b.demo.test"].String() != "::1" {
		t.Errorf("observerHosts = %v", o.observerHosts)
	}
	for _, bad := range []string{"worker-a.demo.test", "=127.0.0.1", "worker-a.demo.test=localhost"} {
		_, err := parse(t, "--observer-host="+bad)
		want := `invalid value "` + bad + `" for flag -observer-host: "` + bad + `": want NAME=IP, such as worker-a.demo.test=127.0.0.1`
		if err == nil || err.Error() != want {
			t.Errorf("--observer-host=%s: error %v, want %s", bad, err, want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if o.metricsAddr != ":8080" || o.probeAddr != ":8081" || o.leaderElect || o.multiclusterConfig != "" ||
		o.enableMulticluster || o.multiclusterRole != "" || o.operatorNamespace != "ome" || o.lease != defaultLease {
		t.Errorf("defaults = %+v", *o)
	}
	if o, err = parse(t, "--operator-namespace=ome-system"); err != nil || o.operatorNamespace != "ome-system" {
		t.Errorf("--operator-namespace=ome-system: %+v, %v", o, err)
	}

	o, err = parse(t, "--multicluster-config=/etc/ome/multicluster", "--enable-multicluster",
		"--multicluster-role=control-plane", "--metrics-bind-address=0", "--health-probe-bind-address=:9440", "--leader-elect",
		"--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=4s")
	if err != nil {
		t.Fatal(err)
	}
	if o.multiclusterConfig != "/etc/ome/multicluster" || !o.enableMulticluster || o.multiclusterRole != "control-plane" ||
		o.metricsAddr != "0" || o.probeAddr != ":9440" || !o.leaderElect ||
		o.lease != (leaseTiming{duration: 30 * time.Second, renewDeadline: 20 * time.Second, retryPeriod: 4 * time.Second}) {
		t.Errorf("parsed = %+v", *o)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown role", []string{"--multicluster-role=worker"},
			`invalid multi-cluster configuration: --multicluster-role "worker" is not supported: use "control-plane" or leave it empty`},
		{"role in another case", []string{"--multicluster-role=Control-Plane"}, `--multicluster-role "Control-Plane" is not supported`},
		{"unknown flag", []string{"--multicluster"}, "flag provided but not defined: -multicluster"},
		{"empty operator namespace", []string{"--operator-namespace="},
			"--operator-namespace must not be empty: it is the only namespace kubeconfig Secrets are read from"},
		{"stray argument", []string{"control-plane"}, `unexpected arguments: ["control-plane"]`},
		{"a lease of 0", []string{"--leader-elect-lease-duration=0s"}, "--leader-elect-lease-duration must be positive, got 0s"},
		{"a negative retry period", []string{"--leader-elect-retry-period=-1s"}, "--leader-elect-retry-period must be positive, got -1s"},
		{"a lease no longer than the renew deadline", []string{"--leader-elect-lease-duration=10s"},
			"--leader-elect-lease-duration (10s) must be longer than --leader-elect-renew-deadline (10s)"},
		{"a renew deadline within the jittered retry period", []string{"--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=2s"},
			"--leader-elect-renew-deadline (2s) must be longer than 1.2 times --leader-elect-retry-period (2s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parseOptions(%q) error = %v, want one containing %q", tc.args, err, tc.want)
			}
		})
	}
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	on := filepath.Join(dir, "on.json")
	if err := os.WriteFile(on, []byte(step1Config), 0o600); err != nil {
		t.Fatal(err)
	}
	off := filepath.Join(dir, "off.json")
	if err := os.WriteFile(off, []byte(`{"routing": {"enabled": false, "probe": []}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	topology := []string{"--enable-multicluster", "--multicluster-role=control-plane"}

	for _, tc := range []struct {
		name        string
		args        []string
		wantRouting bool
		wantErr     string
	}{
		{name: "no file: routing off", args: nil},
		{name: "a missing file is an error, not routing off", args: []string{"--multicluster-config=" + filepath.Join(dir, "absent")},
			wantErr: "load multi-cluster configuration: open " + filepath.Join(dir, "absent") + ": no such file or directory"},
		{name: "routing off needs no topology", args: []string{"--multicluster-config=" + off}},
		{name: "routing on, on a control plane", args: append([]string{"--multicluster-config=" + on}, topology...), wantRouting: true},
		{name: "routing on without --enable-multicluster", args: []string{"--multicluster-config=" + on, "--multicluster-role=control-plane"},
			wantErr: "invalid multi-cluster configuration: routing.enabled=true requires --enable-multicluster and --multicluster-role=control-plane"},
		{name: "routing on without a role", args: []string{"--multicluster-config=" + on, "--enable-multicluster"},
			wantErr: "invalid multi-cluster configuration: routing.enabled=true requires --enable-multicluster and --multicluster-role=control-plane"},
		{name: "a bad file", args: append([]string{"--multicluster-config=" + dir}, topology...),
			wantErr: "load multi-cluster configuration: read " + dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parse(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := loadSettings(o)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("loadSettings() error = %v, want one starting with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("loadSettings() error: %v", err)
			}
			if cfg.Routing.Enabled != tc.wantRouting {
				t.Errorf("routing enabled = %v, want %v", cfg.Routing.Enabled, tc.wantRouting)
			}
		})
	}
}

func TestLoadClusterProfileProviders(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := file("good.json", `{"providers": [{"name": "ocm", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1", "command": "cp-creds"}}]}`)
	misspelt := file("misspelt.json", `{"providers": [{"name": "ocm", "execconfig": {}}]}`)
	for _, tc := range []struct {
		name      string
		args      []string
		providers int
		wantErr   string
	}{
		{name: "off by default"},
		{name: "a namespace and its providers", args: []string{"--clusterprofile-namespace=fleet", "--clusterprofile-provider-file=" + good}, providers: 1},
		{name: "a namespace without a provider file", args: []string{"--clusterprofile-namespace=fleet"},
			wantErr: "--clusterprofile-namespace is set without --clusterprofile-provider-file: a ClusterProfile connects through the access providers that file names"},
		{name: "a misspelt field", args: []string{"--clusterprofile-namespace=fleet", "--clusterprofile-provider-file=" + misspelt},
			wantErr: "--clusterprofile-provider-file " + misspelt + `: unknown field "providers[0].execconfig"`},
		{name: "a missing file", args: []string{"--clusterprofile-namespace=fleet", "--clusterprofile-provider-file=" + filepath.Join(dir, "absent")},
			wantErr: "--clusterprofile-provider-file: open " + filepath.Join(dir, "absent") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parse(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = loadSettings(o)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("loadSettings() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(o.profiles.Providers) != tc.providers {
				t.Fatalf("providers %+v, want %d", o.profiles.Providers, tc.providers)
			}
		})
	}
}

// TestMulticlusterConfigHelpMatchesBehaviour keeps the flag's help in step with
// loadSettings: an unreadable path is an error (TestLoadSettings), never "routing off".
func TestMulticlusterConfigHelpMatchesBehaviour(t *testing.T) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseOptions(fs, nil); err != nil {
		t.Fatal(err)
	}
	const want = "Path of the multi-cluster settings: the JSON in the multicluster key of the inferenceservice-config ConfigMap. " +
		"Unset leaves routing off; a path that cannot be read is an error."
	if got := fs.Lookup("multicluster-config").Usage; got != want {
		t.Errorf("--multicluster-config help = %q, want %q", got, want)
	}
}

// --exec-credential-allowed-variables is read like the commands' list, and a reserved name
// in it stops the manager with the setting, the name and the rule.
func TestExecCredentialAllowedVariables(t *testing.T) {
	o, err := parse(t)
	if err != nil || o.execPolicy().AllowedVariables != nil {
		t.Fatalf("default: %v, %v; want no variables allowed", o.execPolicy().AllowedVariables, err)
	}
	o, err = parse(t, "--allow-exec-credentials", "--exec-credential-allowed-variables=MEMBER_REGION, AWS_PROFILE,,")
	if err != nil {
		t.Fatal(err)
	}
	if got := o.execPolicy().AllowedVariables; !slices.Equal(got, []string{"MEMBER_REGION", "AWS_PROFILE"}) {
		t.Fatalf("AllowedVariables = %q, want [MEMBER_REGION AWS_PROFILE]", got)
	}
	for _, reserved := range []string{"PATH", "LD_PRELOAD", "https_proxy", "PYTHONPATH"} {
		_, err := parse(t, "--exec-credential-allowed-variables=MEMBER_REGION,"+reserved)
		want := `ome.multicluster.execCredentials.allowedVariables (--exec-credential-allowed-variables) lists "` + reserved +
			`", a variable only the manager sets for a plugin (PATH, HOME, KUBERNETES_EXEC_INFO, loader variables LD_* and DYLD_*, ` +
			`interpreter and shell start-up paths, proxies and TLS trust stores)`
		if err == nil || err.Error() != want {
			t.Errorf("%s: error = %v\nwant %s", reserved, err, want)
		}
	}
}
