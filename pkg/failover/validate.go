package failover

import (
	"fmt"
	"regexp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The bounds of a failover setting; the CRD's markers hold the same numbers.
const (
	MaxTiers               = 8
	MaxClustersPerTier     = 32
	MinOverprovisioningPct = 100
	MaxOverprovisioningPct = 1000
	maxTierNameLength      = 63
	maxClusterNameLength   = 253
)

var tierName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// The rules' messages, as the CRD's CEL rules print them; test/failovercases shares them.
const (
	MsgDisabledCombined = "disabled must not be combined with tiers or overprovisioningPercent"
	MsgTiersRequired    = "failover must set tiers unless it is disabled"
	MsgTierEmpty        = "a tier must set clusters, clusterSelector, or both"
	MsgSelectorEmpty    = "clusterSelector must not be empty: it would match every cluster"
	MsgReservedName     = "tier name unlisted is reserved for the homes no tier names"
	MsgNamesUnique      = "tier names must be unique"
)

// Validate checks a failover setting at path (spec.routing.failover, or the installation's
// routing.failover) and returns every rule it breaks, each naming its field: the CRD's
// rules, so that a setting stored under an older schema (or the chart's, which no API server
// checks) is refused the same way, and the label selectors' syntax, which only Go can
// check. A nil setting is valid.
func Validate(f *omev1beta1.RoutingFailover, path string) []error {
	if f == nil {
		return nil
	}
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if f.Disabled && (f.Tiers != nil || f.OverprovisioningPercent != nil) {
		add("%s: %s", path, MsgDisabledCombined)
	}
	if !f.Disabled && f.Tiers == nil {
		add("%s: %s", path, MsgTiersRequired)
	}
	if p := f.OverprovisioningPercent; p != nil && (*p < MinOverprovisioningPct || *p > MaxOverprovisioningPct) {
		add("%s.overprovisioningPercent must be between %d and %d, got %d", path, MinOverprovisioningPct, MaxOverprovisioningPct, *p)
	}
	if f.Tiers != nil && (len(f.Tiers) < 1 || len(f.Tiers) > MaxTiers) {
		add("%s.tiers must have 1 to %d tiers, got %d", path, MaxTiers, len(f.Tiers))
	}
	names := map[string]int{}
	tierOf := map[string]int{}
	for i, t := range f.Tiers {
		at := fmt.Sprintf("%s.tiers[%d]", path, i)
		errs = append(errs, validateTier(t, at)...)
		if names[t.Name]++; names[t.Name] == 2 {
			add("%s: %s (%s is used more than once)", path, MsgNamesUnique, t.Name)
		}
		for _, c := range t.Clusters {
			// A name listed twice in one tier is harmless, as the CRD's rule, which counts
			// tiers, lets it be. tierOf keeps the first tier's index, -1 once told.
			switch other, ok := tierOf[c]; {
			case !ok:
				tierOf[c] = i
			case other != i && other >= 0:
				add("%s: cluster %s is in more than one tier", path, c)
				tierOf[c] = -1
			}
		}
	}
	return errs
}

func validateTier(t omev1beta1.FailoverTier, at string) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	switch {
	case t.Name == "":
		add("%s.name must not be empty", at)
	case len(t.Name) > maxTierNameLength || !tierName.MatchString(t.Name):
		add("%s.name must be a DNS label of at most %d characters, got %q", at, maxTierNameLength, t.Name)
	case t.Name == omev1beta1.UnlistedTier:
		add("%s.name: %s", at, MsgReservedName)
	}
	if t.Clusters == nil && t.ClusterSelector == nil {
		add("%s: %s", at, MsgTierEmpty)
	}
	if t.Clusters != nil && (len(t.Clusters) < 1 || len(t.Clusters) > MaxClustersPerTier) {
		add("%s.clusters must have 1 to %d names, got %d", at, MaxClustersPerTier, len(t.Clusters))
	}
	for j, c := range t.Clusters {
		if c == "" || len(c) > maxClusterNameLength {
			add("%s.clusters[%d] must be a name of 1 to %d characters", at, j, maxClusterNameLength)
		}
	}
	if s := t.ClusterSelector; s != nil {
		if len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 {
			add("%s: %s", at, MsgSelectorEmpty)
		} else if _, err := metav1.LabelSelectorAsSelector(s); err != nil {
			add("%s.clusterSelector is not a valid label selector: %v", at, err)
		}
	}
	return errs
}
