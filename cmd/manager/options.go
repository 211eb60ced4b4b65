package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/pkg/config"
)

// roleControlPlane is the only multi-cluster role this manager plays: it routes traffic
// across workload clusters and probes them.
const roleControlPlane = "control-plane"

// defaultOperatorNamespace is where the manager looks for kubeconfig Secrets when
// --operator-namespace is not given: the namespace the guides install it in.
const defaultOperatorNamespace = "ome"

// options are the manager's command-line settings.
type options struct {
	metricsAddr string
	// secureMetrics serves metrics over HTTPS to callers the API server authenticates
	// and authorizes; off, over plain HTTP to anyone who can reach the port.
	secureMetrics bool
	probeAddr     string
	leaderElect   bool
	// lease is the leader election's timing (--leader-elect-lease-duration,
	// --leader-elect-renew-deadline, --leader-elect-retry-period).
	lease leaseTiming

	// multiclusterConfig is the path of the multi-cluster settings file.
	multiclusterConfig string
	enableMulticluster bool
	multiclusterRole   string
	// operatorNamespace is the manager's own namespace, the only one it reads kubeconfig
	// Secrets from.
	operatorNamespace string
	// observerHosts are names the observer resolves itself (--observer-host).
	observerHosts hostFlag
	// fieldManager names the routing writes in managedFields (--field-manager); empty is
	// the operator's own name.
	fieldManager string
	// showVersion prints the build and exits (--version).
	showVersion bool
	// allowExec and execCommands let member kubeconfigs run the exec credential plugins
	// named (--allow-exec-credentials, --exec-credential-allowed-commands); execVariables
	// are the variables a kubeconfig or a ClusterProfile may set for them
	// (--exec-credential-allowed-variables).
	allowExec     bool
	execCommands  string
	execVariables string
	// profileNamespace and profileProviderFile let WorkloadClusters connect through
	// ClusterProfiles (--clusterprofile-namespace, --clusterprofile-provider-file);
	// loadSettings reads the file into profiles.
	profileNamespace    string
	profileProviderFile string
	profiles            workloadcluster.ClusterProfiles

	zap zap.Options
}

// parseOptions reads args into options. main passes flag.CommandLine, on which
// controller-runtime has registered --kubeconfig; tests pass a flag set of their own.
func parseOptions(fs *flag.FlagSet, args []string) (*options, error) {
	o := &options{observerHosts: hostFlag{}}
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "The address the metrics endpoint binds to; 0 turns it off.")
	fs.BoolVar(&o.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS, only to callers whose token the API server accepts and who may get /metrics. "+
			"false serves plain HTTP to anyone.")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "The address the health endpoints bind to; 0 turns them off.")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "Elect a leader, so that only one manager probes and writes at a time.")
	fs.DurationVar(&o.lease.duration, "leader-elect-lease-duration", defaultLease.duration,
		"How long a stand-by waits, after the leader last renewed the Lease, before it takes over: the longest a crashed leader's maps go unwritten.")
	fs.DurationVar(&o.lease.renewDeadline, "leader-elect-renew-deadline", defaultLease.renewDeadline,
		"How long the leader keeps trying to renew before it gives the Lease up and exits; shorter than the lease duration.")
	fs.DurationVar(&o.lease.retryPeriod, "leader-elect-retry-period", defaultLease.retryPeriod,
		"How often the leader renews, and a stand-by tries to take the Lease; more than 1.2 times of it fit in the renew deadline.")
	fs.StringVar(&o.multiclusterConfig, "multicluster-config", "",
		"Path of the multi-cluster settings: the JSON in the multicluster key of the inferenceservice-config ConfigMap. "+
			"Unset leaves routing off; a path that cannot be read is an error.")
	fs.BoolVar(&o.enableMulticluster, "enable-multicluster", false,
		"Run as part of a multi-cluster installation. Routing needs it.")
	fs.StringVar(&o.multiclusterRole, "multicluster-role", "",
		`This cluster's role in a multi-cluster installation: "control-plane", or empty. Routing needs "control-plane".`)
	fs.StringVar(&o.operatorNamespace, "operator-namespace", defaultOperatorNamespace,
		"The manager's own namespace: WorkloadCluster kubeconfig Secrets are read only from it. The chart sets it to the release namespace.")
	fs.Var(o.observerHosts, "observer-host",
		"NAME=IP: probes resolve NAME to IP themselves, like an /etc/hosts line (repeatable; for local demos and tests).")
	fs.StringVar(&o.fieldManager, "field-manager", "",
		"The field manager of the routing writes to TrafficMaps; empty uses the operator's own. "+
			"For tests that tell two replicas' writes apart; leave it unset in an installation.")
	fs.BoolVar(&o.allowExec, "allow-exec-credentials", false,
		"Let WorkloadCluster kubeconfigs run exec credential plugins, those in --exec-credential-allowed-commands only. "+
			"The plugin must be in the manager's image.")
	fs.StringVar(&o.execCommands, "exec-credential-allowed-commands", defaultExecCommands,
		"Comma-separated exec credential plugins a kubeconfig may run: a bare name is looked up in PATH, an absolute path allows only that file.")
	fs.StringVar(&o.execVariables, "exec-credential-allowed-variables", "",
		"Comma-separated variables, by exact name, that a kubeconfig's exec config or a ClusterProfile's additional variables may set for a plugin; "+
			"empty allows none. The access providers' own execConfig.env need not be listed. PATH, HOME, LD_* and the other reserved names are refused.")
	fs.StringVar(&o.profileNamespace, "clusterprofile-namespace", "",
		"The namespace WorkloadClusters' ClusterProfiles (multicluster.x-k8s.io) are read from, the fleet manager's inventory. "+
			"Empty reads none: a WorkloadCluster with a clusterProfileRef is ClusterProfileUnsupported.")
	fs.StringVar(&o.profileProviderFile, "clusterprofile-provider-file", "",
		"Path of the access providers ClusterProfiles may name, as KEP-5339's provider file: JSON {\"providers\": [{\"name\", \"execConfig\"}]}. "+
			"Each exec plugin must also be allowed by --allow-exec-credentials and --exec-credential-allowed-commands.")
	fs.BoolVar(&o.showVersion, "version", false, "Print the manager's version, revision and Go version, and exit.")
	o.zap.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.showVersion {
		// --version answers even next to flags that would be refused below.
		return o, nil
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err := o.lease.validate(); err != nil {
		return nil, err
	}
	if o.operatorNamespace == "" {
		return nil, errors.New("--operator-namespace must not be empty: it is the only namespace kubeconfig Secrets are read from")
	}
	for _, c := range o.execPolicy().AllowedCommands {
		if strings.ContainsRune(c, '/') && !filepath.IsAbs(c) {
			return nil, fmt.Errorf("--exec-credential-allowed-commands: %q is neither a bare name nor an absolute path", c)
		}
	}
	if err := o.execPolicy().Validate(); err != nil {
		return nil, err
	}
	if o.multiclusterRole != "" && o.multiclusterRole != roleControlPlane {
		// Prefixed like the settings file's problems: the chart sets the role from the
		// same values, and users look for both with the same grep.
		return nil, fmt.Errorf("invalid multi-cluster configuration: --multicluster-role %q is not supported: use %q or leave it empty",
			o.multiclusterRole, roleControlPlane)
	}
	return o, nil
}

// defaultExecCommands are the plugins of the three clouds' kubeconfigs, as OME allows them
// by default; none runs while --allow-exec-credentials is off.
const defaultExecCommands = "aws,gke-gcloud-auth-plugin,kubelogin"

// execPolicy is the exec credential plugins the flags allow.
func (o *options) execPolicy() workloadcluster.ExecPolicy {
	p := workloadcluster.ExecPolicy{Enabled: o.allowExec}
	for c := range strings.SplitSeq(o.execCommands, ",") {
		if c = strings.TrimSpace(c); c != "" {
			p.AllowedCommands = append(p.AllowedCommands, c)
		}
	}
	for v := range strings.SplitSeq(o.execVariables, ",") {
		if v = strings.TrimSpace(v); v != "" {
			p.AllowedVariables = append(p.AllowedVariables, v)
		}
	}
	return p
}

// errRoutingTopology is the chart's own check, repeated for installations that set the flags
// by hand: routing runs only on a multi-cluster control plane.
var errRoutingTopology = errors.New("invalid multi-cluster configuration: " +
	"routing.enabled=true requires --enable-multicluster and --multicluster-role=" + roleControlPlane)

// loadSettings reads and validates the multi-cluster settings file, then checks it against
// the flags. It reads only the file: nothing here may need an API server, so that a bad
// setting stops the manager before it connects to one.
func loadSettings(o *options) (*config.Config, error) {
	var cfg *config.Config
	var err error
	if o.multiclusterConfig == "" {
		cfg, err = config.Parse(nil)
	} else {
		cfg, err = config.Load(o.multiclusterConfig)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Routing.Enabled && (!o.enableMulticluster || o.multiclusterRole != roleControlPlane) {
		return nil, errRoutingTopology
	}
	if o.profiles, err = loadProfiles(o.profileNamespace, o.profileProviderFile); err != nil {
		return nil, err
	}
	return cfg, nil
}

// loadProfiles reads the ClusterProfile access providers (see
// workloadcluster.ParseProviders) and checks them.
func loadProfiles(namespace, path string) (workloadcluster.ClusterProfiles, error) {
	p := workloadcluster.ClusterProfiles{Namespace: namespace}
	if path == "" {
		if namespace != "" {
			return p, errors.New("--clusterprofile-namespace is set without --clusterprofile-provider-file: a ClusterProfile connects through the access providers that file names")
		}
		return p, nil
	}
	data, err := os.ReadFile(path) //nolint:gosec // the installer's own flag (the chart's mount)
	if err != nil {
		return p, fmt.Errorf("--clusterprofile-provider-file: %w", err)
	}
	if p.Providers, err = workloadcluster.ParseProviders(data); err != nil {
		return p, fmt.Errorf("--clusterprofile-provider-file %s: %w", path, err)
	}
	return p, p.Validate()
}
