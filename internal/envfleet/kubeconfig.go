package envfleet

import (
	"errors"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// KubeConfigAs is the cluster's admin kubeconfig made to impersonate whom cfg impersonates
// (a configuration from InstallChartRBAC): for a process, such as the manager's binary,
// that must run with those rights and no others.
func (c *Cluster) KubeConfigAs(cfg *rest.Config) ([]byte, error) {
	if cfg.Impersonate.UserName == "" {
		return nil, errors.New("the configuration impersonates no one")
	}
	kc, err := clientcmd.Load(c.KubeConfig)
	if err != nil {
		return nil, err
	}
	for _, user := range kc.AuthInfos {
		user.Impersonate = cfg.Impersonate.UserName
		user.ImpersonateGroups = cfg.Impersonate.Groups
	}
	return clientcmd.Write(*kc)
}
