package main

import (
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeConfig writes a cluster's kubeconfig with one cluster, user and context, all
// called name (envtest calls every one "envtest", so two files could not be merged into
// one KUBECONFIG), and the service's namespace as the context's namespace, so that the
// plugin's commands need no -n, as a user who works in that namespace would type them.
// The CA, client certificate and key stay inline, so the file works from any folder.
func writeKubeConfig(path string, raw []byte, name string) error {
	in, err := clientcmd.Load(raw)
	if err != nil {
		return err
	}
	current := in.Contexts[in.CurrentContext]
	if current == nil {
		for _, c := range in.Contexts {
			current = c
			break
		}
	}
	out := clientcmdapi.NewConfig()
	if current != nil {
		out.Clusters[name] = in.Clusters[current.Cluster]
		out.AuthInfos[name] = in.AuthInfos[current.AuthInfo]
		out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: serviceNS}
		out.CurrentContext = name
	}
	if err := clientcmd.WriteToFile(*out, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}
