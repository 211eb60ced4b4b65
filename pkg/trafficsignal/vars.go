package trafficsignal

import (
	"regexp"
	"strconv"
	"strings"
)

// Vars are what a template gets for one cluster of one service. Render escapes every
// string for a PromQL double-quoted string before the template sees it, so a template
// writes {proxy="{{.RouteNamespace}}_{{.Route}}"} and no name can end the string.
type Vars struct {
	// Namespace and Service name the InferenceService.
	Namespace, Service string
	// Cluster is the WorkloadCluster's name.
	Cluster string
	// Route and RouteNamespace name the HTTPRoute the publisher writes for the service.
	Route, RouteNamespace string
	// Backends are the backend objects the publisher writes for the cluster (their
	// names), and BackendsRegex those names quoted for a regular expression and joined
	// with |, for =~.
	Backends      []string
	BackendsRegex string
	// BackendPosition is the cluster's place among the route rule's backendRefs, from 1:
	// gateways that name a backend's servers by position (HAProxy Ingress: srv001, ...)
	// find the cluster's series by it. It is a number, usable anywhere in a template.
	BackendPosition int
	// Window is the reading's range as a PromQL duration ("30s"); it is the installer's
	// setting, usable anywhere in a template.
	Window string
}

// escaped returns v with every name escaped for a PromQL double-quoted string. PromQL reads
// such a string with Go's unquoting rules, so Go's quoting is exact.
func (v Vars) escaped() Vars {
	out := v
	out.Namespace, out.Service, out.Cluster = quoteInner(v.Namespace), quoteInner(v.Service), quoteInner(v.Cluster)
	out.Route, out.RouteNamespace = quoteInner(v.Route), quoteInner(v.RouteNamespace)
	out.Backends = make([]string, len(v.Backends))
	quoted := make([]string, len(v.Backends))
	for i, b := range v.Backends {
		out.Backends[i] = quoteInner(b)
		quoted[i] = regexp.QuoteMeta(b)
	}
	out.BackendsRegex = quoteInner(strings.Join(quoted, "|"))
	return out
}

// quoteInner is s as the inside of a PromQL double-quoted string.
func quoteInner(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// FormatWindow writes a window as a PromQL duration: whole seconds, which Validate requires.
func FormatWindow(seconds int64) string {
	return strconv.FormatInt(seconds, 10) + "s"
}
