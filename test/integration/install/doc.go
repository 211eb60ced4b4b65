// Package install installs the Helm chart for real: `helm install`, `helm upgrade` and
// `helm uninstall` against an envtest API server that starts without the project's CRDs, so
// that the chart's own CRDs and every object it renders are checked by a real API server.
package install
