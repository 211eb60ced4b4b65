package routing

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	// timeout is long enough for a gate to close and lift with one-second periods.
	timeout  = framework.GateTimeout
	interval = framework.PollInterval
	// period is the probe period of the suite's policies.
	period = time.Second
	// maxPeriod and maxTimeout are the installation's routing.observer maxima.
	maxPeriod  = time.Minute
	maxTimeout = 10 * time.Second
)

var (
	// memberGrace is the MemberGrace of the managers startManager starts.
	memberGrace = 2 * time.Second
	// observationGrace is their placement.observationGrace: short, so that a spec can wait
	// past it, and longer than the moments between two members' turning ConnectionFailed.
	observationGrace = 8 * time.Second

	testEnv *framework.Environment
	fleet   *envfleet.Fleet
	// managerConfig impersonates the manager's ServiceAccount, bound to the chart's roles.
	managerConfig *rest.Config
	// managerLog collects everything the running manager logs.
	managerLog  *gbytes.Buffer
	stopManager func()

	// pluginDir holds the exec credential plugins the suite's managers may run: the ones
	// named in execPlugins, which specs write there (see exec_plugin_test.go).
	pluginDir string
)

// execPlugins are the plugin files, in pluginDir, on the managers' allow-list.
var execPlugins = []string{"member-token", "hanging", "profile-token", "region-token", "profile-region-token"}

// execVariables are the variables a kubeconfig or a ClusterProfile may set for the suite's
// plugins (ome.multicluster.execCredentials.allowedVariables).
var execVariables = []string{"MEMBER_REGION"}

// profileNamespace is where the suite's managers read ClusterProfiles from.
const profileNamespace = "fleet-inventory"

// profileProviders are the managers' ClusterProfile access providers: "token" runs a
// plugin on the allow-list, "hanging" one that never answers, "off-list" one that is not
// on it, "region" one that takes a profile's variables and sets OCM_HUB itself, a variable
// off execVariables that passes as the installation's own (see clusterprofile_test.go).
func profileProviders() []access.Provider {
	provider := func(name, file string) access.Provider {
		return access.Provider{Name: name, ExecConfig: &clientcmdapi.ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1", Command: filepath.Join(pluginDir, file)}}
	}
	region := provider("region", "profile-region-token")
	region.ExecConfig.Env = []clientcmdapi.ExecEnvVar{{Name: "OCM_HUB", Value: "hub-1"}}
	region.ProfileSourcedEnvVarsPolicy = access.ProfileSourcedEnvVarsPolicyAppendIfNotExists
	return []access.Provider{provider("token", "profile-token"), provider("hanging", "hanging"), provider("off-list", "off-the-list"), region}
}

// execPolicy is the managers' exec credential policy: the plugins above, each run cut
// off after a second, inside the members' two-second timeout.
func execPolicy() workloadcluster.ExecPolicy {
	p := workloadcluster.ExecPolicy{Enabled: true, Timeout: time.Second, AllowedVariables: execVariables}
	for _, name := range execPlugins {
		p.AllowedCommands = append(p.AllowedCommands, filepath.Join(pluginDir, name))
	}
	return p
}

func TestRouting(t *testing.T) {
	suite.Run(t, "Routing suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	pluginDir, err = os.MkdirTemp("", "ome-exec-plugins-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, pluginDir)
	testEnv, err = framework.StartEnvironment(ctx, "worker-a", "worker-b", "worker-c", "worker-d")
	Expect(err).NotTo(HaveOccurred())
	// Stops the running managers, checking their logs, then the API servers.
	DeferCleanup(testEnv.Stop)
	fleet = testEnv.Fleet
	// ClusterProfiles: their CRD, and the namespace the managers read them from.
	Expect(fleet.ControlPlane.InstallClusterProfileCRD()).To(Succeed())
	Expect(fleet.ControlPlane.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: profileNamespace}})).To(Succeed())
	var values []map[string]any
	for _, p := range profileProviders() {
		execConfig := map[string]any{"apiVersion": p.ExecConfig.APIVersion, "command": p.ExecConfig.Command}
		if len(p.ExecConfig.Env) > 0 {
			execConfig["env"] = p.ExecConfig.Env
		}
		v := map[string]any{"name": p.Name, "execConfig": execConfig}
		if p.ProfileSourcedEnvVarsPolicy != "" {
			v["profileSourcedEnvVarsPolicy"] = p.ProfileSourcedEnvVarsPolicy
		}
		values = append(values, v)
	}
	providers, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	// The manager runs as the chart's ServiceAccount with the chart's RBAC, the
	// ClusterProfiles Role included.
	managerConfig, err = fleet.ControlPlane.InstallChartRBAC(ctx, envfleet.SecretNamespace,
		"--set", "ome.multicluster.enabled=true", "--set", "ome.multicluster.clusterProfiles.namespace="+profileNamespace,
		"--set-json", "ome.multicluster.clusterProfiles.providers="+string(providers))
	Expect(err).NotTo(HaveOccurred())
	stopManager = startManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)
}, NodeTimeout(framework.SuiteSetupTimeout))

// installationProbe is the installation's probe of the suite: the spec's Step 1 probe with
// a one-second period.
func installationProbe(policy omev1beta1.AllFailedPolicy) *probe.Policy {
	p, errs := probe.Validate(probe.SpecFromAPI(framework.GuideProbe(period, 500*time.Millisecond, policy)), probe.InstallationPath)
	Expect(errs).To(BeEmpty())
	return &p
}

// startManager runs the controllers in a manager against the control plane, the way
// cmd/manager does, and returns a function that stops it and waits for it to end.
func startManager(installation *probe.Policy, maxRequests int64) func() {
	stop, _ := launchManager(installation, maxRequests, managerSetup{})
	return stop
}

// managerSetup is how launchManager's manager differs from the suite's.
type managerSetup struct {
	// fieldManager names its writes (empty: the operator's).
	fieldManager string
	// elect runs leader election as the chart does, on short timings.
	elect bool
	// endpoint is the installation's endpoint block (none: nothing is published).
	endpoint config.Endpoint
	// namespace, when set, is the one namespace whose services and maps the manager reads
	// and writes: a spec's managers with field managers of their own then leave the other
	// specs' maps with one status writer, as a real installation has.
	namespace string
	// allowErrors are reconciler errors of a defect that the spec causes on purpose
	// (framework.AllowReconcilerErrors).
	allowErrors []string
}

// launchManager is startManager with the differences in setup.
func launchManager(installation *probe.Policy, maxRequests int64, setup managerSetup) (func(), ctrl.Manager) {
	managerLog = gbytes.NewBuffer()
	observer := framework.ObserverSettings()
	observer.MaxConcurrentRequests, observer.MaxPeriod, observer.MaxTimeout = maxRequests, maxPeriod, maxTimeout
	m, err := testEnv.StartManager(config.Config{Endpoint: setup.endpoint,
		Routing:   config.Routing{Enabled: true, Probe: installation, Observer: observer},
		Placement: config.Placement{ObservationGrace: observationGrace}},
		// The manager runs as the chart's ServiceAccount (see managerConfig).
		framework.WithConfig(managerConfig),
		framework.WithClusterProfiles(workloadcluster.ClusterProfiles{Namespace: profileNamespace, Providers: profileProviders()}),
		framework.WithControllers(func(o *controllers.Options) {
			o.MemberTimeout, o.MemberHealthInterval, o.MemberGrace = 2*time.Second, time.Second, memberGrace
			o.FieldManager = setup.fieldManager
			o.Exec = execPolicy()
		}),
		framework.WithLog(GinkgoWriter, managerLog),
		framework.AllowReconcilerErrors(setup.allowErrors...),
		framework.WithManager(func(opts *ctrl.Options) {
			if setup.elect {
				opts.LeaderElection = true
				opts.LeaderElectionID = "ome-routing-operator.ome.io"
				opts.LeaderElectionNamespace = envfleet.SecretNamespace
				opts.LeaseDuration = ptr.To(4 * time.Second)
				opts.RenewDeadline = ptr.To(3 * time.Second)
				opts.RetryPeriod = ptr.To(500 * time.Millisecond)
				opts.LeaderElectionReleaseOnCancel = true
			}
			if setup.namespace != "" {
				opts.Cache.DefaultNamespaces = map[string]cache.Config{setup.namespace: {}}
			}
		}),
	)
	Expect(err).NotTo(HaveOccurred())
	return func() { Expect(m.Stop()).To(Succeed()) }, m.Manager
}

// restartManager replaces the running manager with one built from the arguments.
func restartManager(installation *probe.Policy, maxRequests int64) {
	// The new manager starts even when the old one's stop fails its log check, so that
	// one spec's failure is not every later spec's.
	defer func() { stopManager = startManager(installation, maxRequests) }()
	stopManager()
}
