package workloadcluster

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// memberConfig turns a WorkloadCluster's kubeconfig into a client configuration, refusing
// every form that would let the Secret reach outside itself or weaken TLS: the control
// plane must not read files from its own disk, run commands, or talk to a member it
// cannot authenticate. The one command it may run is an exec credential plugin that
// policy allows.
func memberConfig(data []byte, policy ExecPolicy) (*rest.Config, error) {
	kc, err := clientcmd.Load(data)
	if err != nil {
		return nil, parseError(err)
	}
	ctxName := kc.CurrentContext
	if ctxName == "" && len(kc.Contexts) == 1 {
		for name := range kc.Contexts {
			ctxName = name
		}
	}
	kctx, ok := kc.Contexts[ctxName]
	if !ok {
		return nil, fmt.Errorf("kubeconfig has no current context")
	}
	cluster, ok := kc.Clusters[kctx.Cluster]
	if !ok {
		return nil, fmt.Errorf("kubeconfig context %q names cluster %q, which it does not define", ctxName, kctx.Cluster)
	}
	auth, ok := kc.AuthInfos[kctx.AuthInfo]
	if !ok {
		return nil, fmt.Errorf("kubeconfig context %q names user %q, which it does not define", ctxName, kctx.AuthInfo)
	}
	if err := errors.Join(checkCluster(cluster), checkAuth(auth, policy)); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kc, &clientcmd.ConfigOverrides{CurrentContext: ctxName}).ClientConfig()
	if err != nil {
		return nil, err
	}
	if auth.Exec != nil {
		policy.useExecPlugin(cfg, auth.Exec)
	}
	return cfg, nil
}

func checkCluster(c *clientcmdapi.Cluster) error {
	// No message quotes the server: it may carry a password or a token, and these errors
	// become the WorkloadCluster's status.
	var errs []error
	u, err := url.Parse(c.Server)
	switch {
	case err != nil:
		errs = append(errs, errors.New("server is not a URL"))
	case u.Scheme != "https":
		errs = append(errs, errors.New("server must use https"))
	}
	if err == nil {
		if u.User != nil {
			// net/http would send it as basic auth, which is refused below in its own form.
			errs = append(errs, errors.New("server with user information is refused"))
		}
		if u.RawQuery != "" || u.ForceQuery {
			errs = append(errs, errors.New("server with a query is refused"))
		}
		if u.Fragment != "" {
			errs = append(errs, errors.New("server with a fragment is refused"))
		}
	}
	if c.InsecureSkipTLSVerify {
		errs = append(errs, errors.New("insecure-skip-tls-verify is refused"))
	}
	if c.CertificateAuthority != "" {
		errs = append(errs, errors.New("certificate-authority file paths are refused; use certificate-authority-data"))
	}
	if len(c.CertificateAuthorityData) == 0 {
		errs = append(errs, errors.New("certificate-authority-data is required"))
	}
	if c.ProxyURL != "" {
		errs = append(errs, errors.New("proxy-url is refused"))
	}
	return errors.Join(errs...)
}

func checkAuth(a *clientcmdapi.AuthInfo, policy ExecPolicy) error {
	var errs []error
	if a.Exec != nil {
		if err := policy.check(a.Exec, nil); err != nil {
			errs = append(errs, err)
		}
		if a.Token != "" || len(a.ClientCertificateData) > 0 || len(a.ClientKeyData) > 0 {
			errs = append(errs, errors.New("an exec credential plugin cannot be combined with an inline token or client certificate"))
		}
	}
	if a.AuthProvider != nil {
		errs = append(errs, errors.New("auth-provider is refused"))
	}
	if a.Username != "" || a.Password != "" {
		errs = append(errs, errors.New("basic auth is refused"))
	}
	if a.TokenFile != "" || a.ClientCertificate != "" || a.ClientKey != "" {
		errs = append(errs, errors.New("credential file paths are refused; use token or client-certificate-data and client-key-data"))
	}
	if a.Impersonate != "" || len(a.ImpersonateGroups) > 0 || a.ImpersonateUID != "" || len(a.ImpersonateUserExtra) > 0 {
		errs = append(errs, errors.New("impersonation is refused"))
	}
	hasCert := len(a.ClientCertificateData) > 0 && len(a.ClientKeyData) > 0
	if a.Token == "" && !hasCert && a.Exec == nil {
		errs = append(errs, errors.New("an inline token or client-certificate-data and client-key-data are required"))
	}
	return errors.Join(errs...)
}

// yamlLine finds the line number a YAML parser's error starts with, when it gives one.
var yamlLine = regexp.MustCompile(`^yaml: (?:unmarshal errors:\s*)?line (\d+):`)

// parseError says that the kubeconfig does not parse without repeating the parser's
// words: they quote what they could not read (`cannot decode !!str `+"`…`"+` as a !!int`,
// `unknown anchor '…'`), which may be the token, and the message becomes the
// WorkloadCluster's status. Only the line number is kept.
func parseError(err error) error {
	msg := "parse kubeconfig: not a valid kubeconfig (the parser's message is withheld, as it may quote a credential)"
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		msg = fmt.Sprintf("parse kubeconfig: not a valid kubeconfig at line %s (the parser's message is withheld, as it may quote a credential)", m[1])
	}
	return errors.New(msg)
}
