package workloadcluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
)

// recordingPlugin is a plugin that writes its whole environment to a file, one variable a
// line, before it prints its token.
func recordingPlugin(t *testing.T) (path, record string) {
	t.Helper()
	dir := t.TempDir()
	record = filepath.Join(dir, "env")
	return plugin(t, dir, "recording-plugin", "env > '"+record+"'\n"+credential("recorded", "")), record
}

// recordedEnv is what the plugin saw, without what sh itself adds.
func recordedEnv(t *testing.T, record string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("the plugin did not run: %v", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		if !slices.Contains([]string{"PWD", "OLDPWD", "SHLVL", "_"}, k) {
			env[k] = v
		}
	}
	return env
}

// A ClusterProfile's additional variables can set neither PATH, HOME, a loader's preload
// nor an interpreter's search path for the plugin, under either policy that passes
// variables: the profile is refused, naming the variable, and the plugin never runs. What
// a plugin sees is PATH and HOME from the manager, KUBERNETES_EXEC_INFO and the ordinary
// variables the provider and the profile give.
func TestProfileVariablesCannotChooseThePluginsCode(t *testing.T) {
	t.Setenv("OME_MANAGER_SECRET", "leaked")
	managerPath, managerHome := os.Getenv("PATH"), os.Getenv("HOME")
	for _, policy := range []access.ProfileSourcedEnvVarsPolicy{access.ProfileSourcedEnvVarsPolicyAppendIfNotExists, access.ProfileSourcedEnvVarsPolicyReplace} {
		for _, hostile := range []string{"LD_PRELOAD", "PATH", "HOME", "PYTHONPATH", "NODE_OPTIONS", "DYLD_INSERT_LIBRARIES", "https_proxy", "PERL5LIB", "RUBYLIB", "GEM_PATH", "BASH_ENV"} {
			t.Run(string(policy)+" "+hostile, func(t *testing.T) {
				srv := newVersionServer(t)
				path, record := recordingPlugin(t)
				p := providers(path)
				p.Providers[0].ProfileSourcedEnvVarsPolicy = policy
				cp := profile(srv, "ocm", clientcmdv1.NamedExtension{Name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs",
					Extension: runtime.RawExtension{Raw: []byte(`{"` + hostile + `": "/tmp/evil", "REGION": "eu"}`)}})
				// Even on the allow-list, a reserved name is refused.
				err := profileVersion(t, cp, p, ExecPolicy{Enabled: true, AllowedCommands: []string{path}, AllowedVariables: []string{hostile, "REGION"}})
				if err == nil || !strings.Contains(err.Error(), `its variable "`+hostile+`" is one only the manager sets`) {
					t.Fatalf("profile with %s = %v, want it refused naming the variable", hostile, err)
				}
				if _, statErr := os.Stat(record); statErr == nil {
					t.Fatal("the plugin ran for a refused profile")
				}
				if len(srv.seen()) != 0 {
					t.Fatal("the member was asked with a refused profile")
				}
			})
		}
		t.Run(string(policy)+" ordinary variables", func(t *testing.T) {
			srv := newVersionServer(t)
			path, record := recordingPlugin(t)
			p := providers(path)
			p.Providers[0].ProfileSourcedEnvVarsPolicy = policy
			cp := profile(srv, "ocm", clientcmdv1.NamedExtension{Name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs",
				Extension: runtime.RawExtension{Raw: []byte(`{"REGION": "eu"}`)}})
			if err := profileVersion(t, cp, p, ExecPolicy{Enabled: true, AllowedCommands: []string{path}, AllowedVariables: []string{"REGION"}}); err != nil {
				t.Fatal(err)
			}
			env := recordedEnv(t, record)
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range env {
					if !yield(k) {
						return
					}
				}
			})
			if want := []string{"HOME", "KUBERNETES_EXEC_INFO", "PATH", "REGION"}; !slices.Equal(keys, want) {
				t.Fatalf("the plugin saw %q, want %q", keys, want)
			}
			if env["PATH"] != managerPath || env["HOME"] != managerHome || env["REGION"] != "eu" {
				t.Fatalf("the plugin saw PATH=%q HOME=%q REGION=%q", env["PATH"], env["HOME"], env["REGION"])
			}
		})
	}
}
