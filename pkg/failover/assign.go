package failover

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Paths of the two places a failover setting comes from, as errors name them.
const (
	ServicePath      = "spec.routing.failover"
	InstallationPath = "routing.failover"
)

// Resolve returns the failover setting that applies to a service and the path errors
// name it by: the service's own when it sets one (a whole replacement, as the probe's),
// else the installation's; nil when neither sets one or the one that applies is disabled.
func Resolve(service, installation *omev1beta1.RoutingFailover) (*omev1beta1.RoutingFailover, string) {
	f, path := installation, InstallationPath
	if service != nil {
		f, path = service, ServicePath
	}
	if f == nil || f.Disabled {
		return nil, ""
	}
	return f, path
}

// Cluster is what assignment reads of a WorkloadCluster: its name and labels.
type Cluster struct {
	Name   string
	Labels map[string]string
}

// Assignment is the tier of each home, for trafficmap.Build.
type Assignment struct {
	// Names are the tiers in order of preference, omev1beta1.UnlistedTier last when a
	// home is in no tier.
	Names []string
	// TierOf maps a home's cluster to its index in Names.
	TierOf map[string]int
	// OverprovisioningPercent is the setting's factor, or Envoy's default.
	OverprovisioningPercent int64
}

// Assign puts each cluster in the tier that names it or whose selector matches its labels,
// and the rest in the unlisted tier. The setting must be valid (Validate); path names it
// in errors. A cluster two
// tiers claim (a selector can match a cluster another tier names, or two selectors the same
// labels) is an error that names both tiers: no order between them is the user's intent.
func Assign(f *omev1beta1.RoutingFailover, path string, clusters []Cluster) (Assignment, error) {
	selectors := make([]labels.Selector, len(f.Tiers))
	for i, t := range f.Tiers {
		if t.ClusterSelector == nil {
			continue
		}
		s, err := metav1.LabelSelectorAsSelector(t.ClusterSelector)
		if err != nil {
			return Assignment{}, fmt.Errorf("%s.tiers[%d].clusterSelector is not a valid label selector: %w", path, i, err)
		}
		selectors[i] = s
	}
	out := Assignment{TierOf: make(map[string]int, len(clusters)), OverprovisioningPercent: omev1beta1.DefaultOverprovisioningPercent}
	if p := f.OverprovisioningPercent; p != nil {
		out.OverprovisioningPercent = int64(*p)
	}
	for _, t := range f.Tiers {
		out.Names = append(out.Names, t.Name)
	}
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	unlisted := false
	for _, c := range sorted {
		tier := -1
		for i, t := range f.Tiers {
			in := slices.Contains(t.Clusters, c.Name) || (selectors[i] != nil && selectors[i].Matches(labels.Set(c.Labels)))
			if !in {
				continue
			}
			if tier >= 0 {
				return Assignment{}, fmt.Errorf("%s: cluster %s is in tiers %s and %s", path, c.Name, f.Tiers[tier].Name, t.Name)
			}
			tier = i
		}
		if tier < 0 {
			tier, unlisted = len(f.Tiers), true
		}
		out.TierOf[c.Name] = tier
	}
	if unlisted {
		out.Names = append(out.Names, omev1beta1.UnlistedTier)
	}
	return out, nil
}
