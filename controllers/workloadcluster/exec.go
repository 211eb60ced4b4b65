package workloadcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	clientauthv1 "k8s.io/client-go/pkg/apis/clientauthentication/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/transport"
)

// The settings that let a kubeconfig run an exec credential plugin, as messages name them:
// the chart value first, then the manager flag it renders.
const (
	execEnabledSetting   = "ome.multicluster.execCredentials.enabled (--allow-exec-credentials)"
	execCommandsSetting  = "ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)"
	execVariablesSetting = "ome.multicluster.execCredentials.allowedVariables (--exec-credential-allowed-variables)"
)

// DefaultExecTimeout bounds one run of an exec credential plugin when ExecPolicy sets none:
// long enough for a cloud CLI to refresh a token over the network, short enough that a
// hung plugin holds up only its own member's connection.
const DefaultExecTimeout = 30 * time.Second

// maxExecOutput caps what is read of a plugin's standard output: an ExecCredential is a
// few kilobytes, and a plugin that writes without end must not fill the manager's memory.
const maxExecOutput = 1 << 20

// ExecPolicy says which exec credential plugins a member's kubeconfig may run. Its zero
// value runs none, as the chart's default does.
type ExecPolicy struct {
	// Enabled lets kubeconfigs name a plugin at all.
	Enabled bool
	// AllowedCommands are the commands that may run: a bare name is looked up in the
	// manager's PATH, an absolute path allows only that file.
	AllowedCommands []string
	// AllowedVariables are the only variables, by exact name, that a kubeconfig's exec
	// config or a ClusterProfile's additional variables may set for a plugin. The
	// variables of the installation's own access provider (its provider file) need not be
	// listed: the installer wrote them. A reserved name is refused even if listed.
	AllowedVariables []string
	// Timeout bounds one run; zero means DefaultExecTimeout.
	Timeout time.Duration
}

// Validate refuses an allow-list of variables that names one only the manager sets: the
// manager checks it when it starts, and the chart with the same words.
func (p ExecPolicy) Validate() error {
	var errs []error
	for _, name := range p.AllowedVariables {
		if reservedVariable(name) {
			errs = append(errs, fmt.Errorf("%s lists %q, a variable only the manager sets for a plugin (%s)",
				execVariablesSetting, name, reservedVariablesRule))
		}
	}
	return errors.Join(errs...)
}

// check refuses a plugin the policy does not allow, naming the setting to change. own are
// the variables the installation itself gives the plugin (its access provider's execConfig.env),
// which need not be on the allow-list; nil for a kubeconfig, whose variables all come from
// its Secret's writer.
func (p ExecPolicy) check(e *clientcmdapi.ExecConfig, own []clientcmdapi.ExecEnvVar) error {
	if !p.Enabled {
		return fmt.Errorf("exec credential plugins are refused: %s is false", execEnabledSetting)
	}
	cmd := e.Command
	if cmd == "" {
		return errors.New("exec credential plugin without a command is refused")
	}
	if strings.ContainsRune(cmd, '/') && !filepath.IsAbs(cmd) {
		return fmt.Errorf("exec credential plugin %q is refused: a command is a bare name looked up in PATH or an absolute path", cmd)
	}
	if !slices.Contains(p.AllowedCommands, cmd) {
		return fmt.Errorf("exec credential plugin %q is refused: it is not in %s", cmd, execCommandsSetting)
	}
	for _, v := range e.Env {
		if reservedVariable(v.Name) {
			return fmt.Errorf("exec credential plugin %q is refused: its variable %q is one only the manager sets (%s)", cmd, v.Name, reservedVariablesRule)
		}
	}
	for _, v := range e.Env {
		// A variable of the provider's, name and value both, passes; one the profile gave
		// a new value under Replace is the profile's.
		if !slices.Contains(own, v) && !slices.Contains(p.AllowedVariables, v.Name) {
			return fmt.Errorf("exec credential plugin %q is refused: its variable %q is not in %s, the only variables a kubeconfig or a ClusterProfile may set",
				cmd, v.Name, execVariablesSetting)
		}
	}
	if e.InteractiveMode == clientcmdapi.AlwaysExecInteractiveMode {
		return fmt.Errorf("exec credential plugin %q is refused: interactiveMode Always needs a terminal, which the manager does not have", cmd)
	}
	return nil
}

// useExecPlugin makes cfg get its bearer token from the plugin e names, through a token
// source of the manager's own instead of client-go's exec authenticator: that one gives
// the plugin the manager's whole environment, waits for it without a bound, and may put
// what it printed on stderr into an error. Tokens are reused until they expire.
func (p ExecPolicy) useExecPlugin(cfg *rest.Config, e *clientcmdapi.ExecConfig) {
	src := &execTokenSource{exec: *e, timeout: p.Timeout}
	if src.timeout <= 0 {
		src.timeout = DefaultExecTimeout
	}
	if e.ProvideClusterInfo {
		src.cluster = clusterInfo(cfg, e)
	}
	cfg.ExecProvider = nil
	cfg.WrapTransport = transport.TokenSourceWrapTransport(oauth2.ReuseTokenSource(nil, src))
}

// execTokenSource runs one exec credential plugin per token.
type execTokenSource struct {
	exec    clientcmdapi.ExecConfig
	timeout time.Duration
	// cluster is spec.cluster of KUBERNETES_EXEC_INFO, nil unless the plugin asks for it
	// (provideClusterInfo).
	cluster map[string]any
}

// unexpiringTokenLife is how long a token whose ExecCredential gives no
// expirationTimestamp is reused before the plugin runs again.
const unexpiringTokenLife = 5 * time.Minute

// Token runs the plugin with a minimal environment (PATH and HOME, the variables the
// kubeconfig sets, and KUBERNETES_EXEC_INFO) and no standard input. Neither its output
// nor its standard error reaches an error: either may hold a credential, and errors
// become a WorkloadCluster's status.
func (s *execTokenSource) Token() (*oauth2.Token, error) {
	name := s.exec.Command
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	// The command is one the installation allows (ExecPolicy.check), not a free choice of the
	// kubeconfig.
	cmd := exec.CommandContext(ctx, name, s.exec.Args...) //nolint:gosec // allow-listed above
	cmd.Env = s.env()
	cmd.Stdin = nil
	cmd.Stderr = io.Discard
	cmd.WaitDelay = time.Second
	var out limitedBuffer
	cmd.Stdout = &out
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("exec credential plugin %q did not finish within %s", name, s.timeout)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("exec credential plugin %q failed with exit status %d (its output is withheld, as it may hold a credential)", name, exit.ExitCode())
		}
		return nil, fmt.Errorf("exec credential plugin %q could not be run: %s", name, runError(err))
	case out.over:
		return nil, fmt.Errorf("exec credential plugin %q wrote more than %d bytes", name, maxExecOutput)
	}
	var cred clientauthv1.ExecCredential
	if err := json.Unmarshal(out.Bytes(), &cred); err != nil || cred.Status == nil {
		return nil, fmt.Errorf("exec credential plugin %q did not print an ExecCredential with a status (its output is withheld, as it may hold a credential)", name)
	}
	if cred.Status.Token == "" {
		return nil, fmt.Errorf("exec credential plugin %q printed no token: only token credentials are supported", name)
	}
	tok := &oauth2.Token{AccessToken: cred.Status.Token, TokenType: "Bearer", Expiry: time.Now().Add(unexpiringTokenLife)}
	if exp := cred.Status.ExpirationTimestamp; exp != nil {
		tok.Expiry = exp.Time
	}
	return tok, nil
}

// env is the plugin's environment: nothing of the manager's but PATH and HOME, and
// nothing of the kubeconfig's or the profile's that decides which code runs (check refuses
// those; they are left out here as well, so that no later path can set them).
func (s *execTokenSource) env() []string {
	var env []string
	for _, key := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	for _, v := range s.exec.Env {
		if !reservedVariable(v.Name) {
			env = append(env, v.Name+"="+v.Value)
		}
	}
	spec := map[string]any{"interactive": false}
	if s.cluster != nil {
		spec["cluster"] = s.cluster
	}
	info, _ := json.Marshal(map[string]any{"apiVersion": s.exec.APIVersion, "kind": "ExecCredential", "spec": spec})
	return append(env, "KUBERNETES_EXEC_INFO="+string(info))
}

// reservedVariablesRule says, in a refusal, which variables a kubeconfig or a
// ClusterProfile may not give a plugin.
const reservedVariablesRule = "PATH, HOME, KUBERNETES_EXEC_INFO, loader variables LD_* and DYLD_*, " +
	"interpreter and shell start-up paths, proxies and TLS trust stores"

// reservedVariables are the names no kubeconfig or ClusterProfile may set for an exec
// plugin, under any profileSourcedEnvVarsPolicy: the plugin runs in the pod that holds
// every member's credentials, and each of these decides which code it runs (PATH, the
// loaders' preload and search paths, an interpreter's module path or start-up options, a
// shell's start-up file), where its home and configuration are read from, or where its
// own requests for a token go and whom it trusts there (proxies, CA bundles). Compared
// without case, since a proxy variable works in either.
var reservedVariables = []string{
	"PATH", "HOME", "KUBERNETES_EXEC_INFO", "SHELL", "ENV", "BASH_ENV", "IFS", "CDPATH", "TMPDIR",
	"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONINSPECT",
	"NODE_OPTIONS", "NODE_PATH", "PERL5LIB", "PERLLIB", "PERL5OPT", "RUBYLIB", "RUBYOPT", "GEM_PATH", "GEM_HOME",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "GCONV_PATH", "LOCPATH", "NLSPATH",
	"GOFLAGS", "GODEBUG", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "AWS_CA_BUNDLE",
}

// reservedPrefixes start names reserved as a family: the dynamic loaders' (glibc, musl,
// macOS) and the Python and Node runtimes' tuning variables.
var reservedPrefixes = []string{"LD_", "DYLD_", "PYTHON", "NODE_"}

// ReservedVariables are the names, and the prefixes of names, that only the manager sets for
// a plugin, compared without case: copies, for the chart's tests, which hold the chart's own
// list (values.schema.json, _helpers.tpl) to these.
func ReservedVariables() (names, prefixes []string) {
	return slices.Clone(reservedVariables), slices.Clone(reservedPrefixes)
}

// reservedVariable says whether name is one only the manager sets for a plugin.
func reservedVariable(name string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(reservedVariables, upper) {
		return true
	}
	return slices.ContainsFunc(reservedPrefixes, func(p string) bool { return strings.HasPrefix(upper, p) })
}

// runError says why a plugin could not start without the path lookup's details beyond
// the command's name.
func runError(err error) string {
	if errors.Is(err, exec.ErrNotFound) {
		return "not found in PATH"
	}
	if errors.Is(err, os.ErrNotExist) {
		return "no such file"
	}
	if errors.Is(err, os.ErrPermission) {
		return "permission denied"
	}
	return "it did not start"
}

// limitedBuffer keeps at most maxExecOutput bytes and notes when there were more.
type limitedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxExecOutput - b.Len(); n > room {
		b.over = true
		p = p[:max(room, 0)]
	}
	b.Buffer.Write(p)
	return n, nil
}
