package config

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// failover decodes the installation's failover tiers into the API's type, as strictly as
// the rest of the document: an unknown or repeated key is named by its path. nil when the
// block is absent or null, the chart's default; pkg/failover's rules run in validate.
func (d *decoder) failover(raw json.RawMessage, path string) *omev1beta1.RoutingFailover {
	if raw == nil {
		return nil
	}
	fields := d.object(raw, path, "tiers", "overprovisioningPercent", "disabled")
	if fields == nil {
		return nil
	}
	if _, ok := fields["disabled"]; ok {
		// A service turns the installation's tiers off with disabled: true; the
		// installation turns them off by leaving the block out.
		d.fail("%s.disabled is not supported in the installation's failover: leave %s out for no failover", path, path)
		return nil
	}
	f := &omev1beta1.RoutingFailover{
		OverprovisioningPercent: decodeValue[int32](d, fields["overprovisioningPercent"], path+".overprovisioningPercent", "a 32-bit integer"),
	}
	if tiers := decodeValue[[]json.RawMessage](d, fields["tiers"], path+".tiers", "a list of tiers"); tiers != nil {
		f.Tiers = make([]omev1beta1.FailoverTier, 0, len(*tiers))
		for i, t := range *tiers {
			f.Tiers = append(f.Tiers, d.failoverTier(t, fmt.Sprintf("%s.tiers[%d]", path, i)))
		}
	}
	return f
}

func (d *decoder) failoverTier(raw json.RawMessage, path string) omev1beta1.FailoverTier {
	fields := d.object(raw, path, "name", "clusters", "clusterSelector")
	var t omev1beta1.FailoverTier
	if name := decodeValue[string](d, fields["name"], path+".name", "a string"); name != nil {
		t.Name = *name
	}
	if clusters := decodeValue[[]string](d, fields["clusters"], path+".clusters", "a list of strings"); clusters != nil {
		t.Clusters = *clusters
	}
	if raw := fields["clusterSelector"]; raw != nil {
		t.ClusterSelector = d.labelSelector(raw, path+".clusterSelector")
	}
	return t
}

// labelSelector decodes a clusterSelector; an object that is not one (of the wrong type) is
// reported and read as an empty selector, which the tier's rules then leave alone.
func (d *decoder) labelSelector(raw json.RawMessage, path string) *metav1.LabelSelector {
	fields := d.object(raw, path, "matchLabels", "matchExpressions")
	if fields == nil {
		return nil
	}
	s := &metav1.LabelSelector{}
	if labels := decodeValue[map[string]string](d, fields["matchLabels"], path+".matchLabels", "an object of strings"); labels != nil {
		s.MatchLabels = *labels
	}
	if exprs := decodeValue[[]json.RawMessage](d, fields["matchExpressions"], path+".matchExpressions", "a list of requirements"); exprs != nil {
		s.MatchExpressions = make([]metav1.LabelSelectorRequirement, 0, len(*exprs))
		for i, e := range *exprs {
			at := fmt.Sprintf("%s.matchExpressions[%d]", path, i)
			req := d.object(e, at, "key", "operator", "values")
			var r metav1.LabelSelectorRequirement
			if key := decodeValue[string](d, req["key"], at+".key", "a string"); key != nil {
				r.Key = *key
			}
			if op := decodeValue[string](d, req["operator"], at+".operator", "a string"); op != nil {
				r.Operator = metav1.LabelSelectorOperator(*op)
			}
			if values := decodeValue[[]string](d, req["values"], at+".values", "a list of strings"); values != nil {
				r.Values = *values
			}
			s.MatchExpressions = append(s.MatchExpressions, r)
		}
	}
	return s
}
