#!/bin/sh
# member-kubeconfig.sh CONTEXT OUTPUT [DURATION]
#
# Run against a workload cluster (CONTEXT, a context of your kubeconfig): grants the control
# plane its rights there (member-rbac.yaml), asks for a token of the ome-routing
# ServiceAccount valid for DURATION (8760h, a year, by default; the API server may cap it),
# and writes to OUTPUT a kubeconfig the manager accepts: the context's HTTPS server, its
# CA inline, the token inline. Renew it before it expires by running this again and
# replacing the Secret.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: $0 CONTEXT OUTPUT [DURATION]" >&2
	exit 2
fi
context=$1
output=$2
duration=${3:-8760h}
here=$(dirname "$0")

kubectl --context "$context" apply -f "$here/member-rbac.yaml" >&2
token=$(kubectl --context "$context" -n ome-routing-member create token ome-routing --duration "$duration")
server=$(kubectl --context "$context" config view --minify --flatten -o jsonpath='{.clusters[0].cluster.server}')
ca=$(kubectl --context "$context" config view --minify --flatten -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
if [ -z "$ca" ]; then
	echo "$0: context $context has no certificate authority; the manager needs one inline" >&2
	exit 1
fi

umask 077
cat >"$output" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: member
    cluster:
      server: $server
      certificate-authority-data: $ca
users:
  - name: ome-routing
    user:
      token: $token
contexts:
  - name: member
    context:
      cluster: member
      user: ome-routing
current-context: member
KUBECONFIG
echo "wrote $output" >&2
