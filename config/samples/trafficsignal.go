package samples

import (
	_ "embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

//go:embed trafficsignal/haproxy-values.yaml
var haproxySignalValues []byte

// HAProxySignalValuesPath is where the shipped HAProxy traffic-signal queries live, from
// the repository's root.
const HAProxySignalValuesPath = "config/samples/trafficsignal/haproxy-values.yaml"

// HAProxySignalQueries are the requests and failures templates of the shipped HAProxy
// traffic-signal values file, which the demo and the data-plane suite run the manager
// with: the queries a user installs are the ones they prove.
func HAProxySignalQueries() (requests, failures string, err error) {
	var v struct {
		Ome struct {
			Multicluster struct {
				Config struct {
					Routing struct {
						TrafficSignal struct {
							Queries struct{ Requests, Failures string }
						} `json:"trafficSignal"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(haproxySignalValues, &v); err != nil {
		return "", "", fmt.Errorf("%s: %w", HAProxySignalValuesPath, err)
	}
	q := v.Ome.Multicluster.Config.Routing.TrafficSignal.Queries
	if q.Requests == "" || q.Failures == "" {
		return "", "", fmt.Errorf("%s holds no requests and failures queries", HAProxySignalValuesPath)
	}
	return q.Requests, q.Failures, nil
}
